#!/bin/sh
# The runtime probe's cost (docs/runtime-report.md): one program, the same
# steps, run without the probe, with the probe loaded but off (no
# TORCH_TIDY_PROBE_OUT), and with it on, alternating, in one run; prints
# the median times and their ratios to the run without the probe.
#   bench/probe-overhead.sh [BUILD_DIR] [STEPS]   (default: build 3000)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
STEPS=${2:-3000}
PROBE=$BUILD/lib/libtorch-tidy-probe.so
[ -f "$PROBE" ] || { echo "no $PROBE: build torch-tidy with LibTorch first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
clang++-22 -O2 -g -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 \
  -isystem /usr/include/torch/csrc/api/include \
  test/tool/Inputs/probe-program.cpp -o "$WORK/prog" -ltorch -ltorch_cpu -lc10
python3 - "$WORK/prog" "$PROBE" "$STEPS" "$WORK/run.json" <<'PY'
import os, statistics, subprocess, sys, time
prog, probe, steps, out = sys.argv[1:]
modes = {
    "without probe": {},
    "probe loaded, off": {"LD_PRELOAD": probe},
    "probe on": {"LD_PRELOAD": probe, "TORCH_TIDY_PROBE_OUT": out},
}
times = {m: [] for m in modes}
for _ in range(5):
    for mode, extra in modes.items():
        env = dict(os.environ, **extra)
        env.pop("TORCH_TIDY_PROBE_OUT", None) if "TORCH_TIDY_PROBE_OUT" not in extra else None
        t = time.perf_counter()
        subprocess.run([prog, steps], env=env, stdout=subprocess.DEVNULL, check=True)
        times[mode].append(time.perf_counter() - t)
base = statistics.median(times["without probe"])
print("%s steps of a training loop with 2 .item() per step, median of 5:" % steps)
for mode in modes:
    m = statistics.median(times[mode])
    print("  %-18s %6.3f s   ratio %.2f" % (mode, m, m / base))
PY
