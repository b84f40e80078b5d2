#!/usr/bin/env bash
# Scaling with translation-unit size: generated LibTorch files of 5k, 10k and
# 20k functions (each a few tensor ops, one in ten with a finding), analysed
# by torch-tidy with every torch-* check and parsed by clang++-22
# -fsyntax-only, side by side. Prints time and peak memory of both and
# their ratio per size; cost is linear when the ratio stays flat.
# Usage: bench/scale.sh [sizes...]   (default: 5000 10000 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
TIDY=build/bin/torch-tidy
[ -x "$TIDY" ] || { echo "build torch-tidy first: scripts/build.sh torch-tidy" >&2; exit 2; }
SIZES=("${@:-5000 10000 20000}")
read -r -a SIZES <<< "${SIZES[*]}"
FLAGS=(-std=c++17 -isystem /usr/include/torch/csrc/api/include)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT

gen() { # gen N FILE
  python3 - "$1" "$2" <<'PY'
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write("#include <torch/torch.h>\n")
    for i in range(n):
        f.write("torch::Tensor f%d(torch::Tensor x, torch::Device d) {\n" % i)
        f.write("  auto y = x * %d + 1;\n" % i)
        if i % 10 == 0:
            f.write("  y.to(d);\n")
        f.write("  for (int k = 0; k < 3; ++k)\n    y = y.relu();\n")
        f.write("  return y.sum();\n}\n")
PY
}
measure() { # measure OUTVAR command... ; sets "seconds peakMiB"
  local out=$1; shift
  /usr/bin/time -f '%e %M' -o "$WORK/t" "$@" >/dev/null 2>&1 || true
  read -r s k < "$WORK/t"
  printf -v "$out" '%s %s' "$s" "$(( k / 1024 ))"
}
printf '%-8s %12s %12s %12s %12s %8s\n' functions 'clang++ s' 'tidy s' 'clang++ MiB' 'tidy MiB' ratio
for n in "${SIZES[@]}"; do
  gen "$n" "$WORK/f$n.cpp"
  measure CC clang++-22 -fsyntax-only "${FLAGS[@]}" "$WORK/f$n.cpp"
  measure TT "$TIDY" --quiet --checks='-*,torch-*' "$WORK/f$n.cpp" -- "${FLAGS[@]}"
  read -r cs cm <<< "$CC"; read -r ts tm <<< "$TT"
  printf '%-8s %12s %12s %12s %12s %8.3f\n' "$n" "$cs" "$ts" "$cm" "$tm" "$(echo "$ts / $cs" | bc -l)"
done
