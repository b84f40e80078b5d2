#!/usr/bin/env bash
# Builds torch-tidy-harness against the LibTorch of the installed PyTorch
# (CUDA build) and runs every scenario on cuda. Results (table + JSON +
# logs) go to $OUT when it is set, else to <build>/results.
#   harness/run-gpu.sh            # from anywhere
# Env: PYTHON (python3), HARNESS_BUILD_DIR, HARNESS_STEPS (10), CUDA_HOME,
#      HARNESS_ALLOW_CPU=1 (dry run: accept a LibTorch without CUDA / no GPU).
# Finishes in under 8 minutes: every stage runs under `timeout`.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${HARNESS_BUILD_DIR:-${TMPDIR:-/tmp}/torch-tidy-harness-gpu}
RESULTS=${OUT:-$BUILD/results}
STEPS=${HARNESS_STEPS:-10}
PY=${PYTHON:-python3}
mkdir -p "$BUILD" "$RESULTS"
log() { echo "[run-gpu] $*" | tee -a "$RESULTS/run-gpu.log"; }
: > "$RESULTS/run-gpu.log"

# --- what we run on --------------------------------------------------------
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 || true)
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 || true)
log "GPU: ${GPU:-none found by nvidia-smi} (compute capability ${CAP:-?})"
PREFIX=$(timeout 60 "$PY" -c 'import torch;print(torch.utils.cmake_prefix_path)')
TORCH_INFO=$(timeout 60 "$PY" -c 'import torch;print("PyTorch", torch.__version__, "CUDA", torch.version.cuda, "available", torch.cuda.is_available())')
log "$TORCH_INFO"
log "LibTorch CMake prefix: $PREFIX"

# --- CUDA toolkit ----------------------------------------------------------
# TorchConfig of a CUDA build looks for the toolkit (FindCUDA / CUDAToolkit;
# recent versions also enable the CUDA language), so point it at nvcc. The
# harness compiles its scenarios' kernels (scenarios/cuda_kernels.cu) with it
# too; without nvcc the four extension scenarios report SKIPPED.
NVCC=${CUDACXX:-$(command -v nvcc || true)}
for dir in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/local/cuda-13* /usr/local/cuda-12* /opt/cuda; do
  if [ -z "$NVCC" ] && [ -n "$dir" ] && [ -x "$dir/bin/nvcc" ]; then NVCC="$dir/bin/nvcc"; fi
done
if [ -z "$NVCC" ]; then  # pip wheels: nvidia/cu13/bin/nvcc, nvidia/cuda_nvcc/bin/nvcc
  NVCC=$(timeout 60 "$PY" - <<'PY' 2>/dev/null || true
import glob, os
try:
    import nvidia
    roots = list(nvidia.__path__)
except Exception:
    roots = []
for r in roots:
    for c in sorted(glob.glob(os.path.join(r, "*", "bin", "nvcc"))):
        print(c); raise SystemExit
PY
)
fi
CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$PREFIX")
if [ -n "$NVCC" ]; then
  CUDA_ROOT=$(cd "$(dirname "$NVCC")/.." && pwd)
  log "nvcc: $NVCC ($("$NVCC" --version | tail -n1))"
  CMAKE_ARGS+=("-DCMAKE_CUDA_COMPILER=$NVCC" "-DCUDAToolkit_ROOT=$CUDA_ROOT"
               "-DCUDA_TOOLKIT_ROOT_DIR=$CUDA_ROOT")
  export PATH="$CUDA_ROOT/bin:$PATH"
else
  log "warning: no nvcc found; configuring may fail to find CUDA"
fi
ARCH=${CAP//./}
ARCH=${ARCH:-90}
CMAKE_ARGS+=("-DCMAKE_CUDA_ARCHITECTURES=$ARCH")
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-${CAP:-9.0}}

if command -v ninja >/dev/null; then GEN=Ninja; else GEN="Unix Makefiles"; fi

# --- configure, build ------------------------------------------------------
log "configure ($GEN) -> $BUILD"
if ! timeout 150 cmake -S "$HERE" -B "$BUILD" -G "$GEN" "${CMAKE_ARGS[@]}" \
    > "$RESULTS/configure.log" 2>&1; then
  tail -n 40 "$RESULTS/configure.log"; log "configure failed (see configure.log)"; exit 3
fi
grep -E "torch-tidy-harness:" "$RESULTS/configure.log" | tee -a "$RESULTS/run-gpu.log"
if ! grep -q "CUDA support: ON" "$RESULTS/configure.log" && [ "${HARNESS_ALLOW_CPU:-0}" != 1 ]; then
  log "error: the LibTorch at $PREFIX has no CUDA; nothing to run on the GPU"; exit 5
fi
log "build with $(nproc) jobs"
if ! timeout 240 cmake --build "$BUILD" --parallel "$(nproc)" \
    > "$RESULTS/build.log" 2>&1; then
  tail -n 40 "$RESULTS/build.log"; log "build failed (see build.log)"; exit 4
fi

# --- run -------------------------------------------------------------------
log "run: torch-tidy-harness --device cuda --steps $STEPS"
set +e
timeout 120 "$BUILD/bin/torch-tidy-harness" --device cuda --steps "$STEPS" \
  --json "$RESULTS/harness-cuda.json" 2>&1 | tee "$RESULTS/harness-cuda.txt"
rc=${PIPESTATUS[0]}
set -e
log "exit code $rc (0: nothing REFUTED, 1: something REFUTED, 124: timeout)"
if [ "$rc" = 0 ] && [ "${HARNESS_ALLOW_CPU:-0}" != 1 ] &&
   grep -q '"device_name": "no usable CUDA device"' "$RESULTS/harness-cuda.json"; then
  log "error: torch::cuda::is_available() is false: every scenario was SKIPPED"; rc=5
fi
# --- the runtime probe (docs/runtime-report.md) on CUDA ------------------------
# Its own build against the same LibTorch; a failure here is logged, and
# does not change the harness's exit code.
PROBE_BUILD=$BUILD/probe
log "probe: build libtorch-tidy-probe.so and probe-program"
if timeout 150 cmake -S "$HERE/../probe" -B "$PROBE_BUILD" -G "$GEN" "${CMAKE_ARGS[@]}" \
     -DTORCH_TIDY_PROBE_EXAMPLE=ON > "$RESULTS/probe-build.log" 2>&1 &&
   timeout 180 cmake --build "$PROBE_BUILD" --parallel "$(nproc)" \
     >> "$RESULTS/probe-build.log" 2>&1; then
  set +e
  TORCH_TIDY_PROBE_OUT="$RESULTS/probe-cuda.json" \
    LD_PRELOAD="$PROBE_BUILD/libtorch-tidy-probe.so" \
    timeout 60 "$PROBE_BUILD/probe-program" 20 > "$RESULTS/probe-run.txt" 2>&1
  prc=$?
  set -e
  log "probe: exit code $prc; report $RESULTS/probe-cuda.json"
  grep -o '"op": "[a-z_-]*", "count": [0-9]*, "bytes": [0-9]*' \
    "$RESULTS/probe-cuda.json" 2>/dev/null | tee -a "$RESULTS/run-gpu.log" || true
else
  log "probe: build failed (see probe-build.log)"
fi
log "results in $RESULTS"
exit "$rc"
