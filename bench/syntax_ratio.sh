#!/usr/bin/env bash
# Cost of torch-tidy with every torch-* check, relative to the compiler's own
# parse (clang++-22 -fsyntax-only), on the same file that includes
# <torch/torch.h>. Runs are interleaved side by side; medians are compared.
# Usage: bench/syntax_ratio.sh [file.cpp] [runs]   (target ratio: <= 1.05)
set -euo pipefail
cd "$(dirname "$0")/.."
FILE="${1:-examples/train.cpp}"
RUNS="${2:-5}"
TIDY=build/bin/torch-tidy
[ -x "$TIDY" ] || { echo "build torch-tidy first: scripts/build.sh torch-tidy" >&2; exit 2; }
FLAGS=(-std=c++17 -isystem /usr/include/torch/csrc/api/include -Iexamples)

now() { date +%s.%N; }
declare -a T_CC T_TIDY
for i in $(seq "$RUNS"); do
  s=$(now); clang++-22 -fsyntax-only "${FLAGS[@]}" "$FILE" 2>/dev/null; e=$(now)
  T_CC+=("$(echo "$e - $s" | bc)")
  s=$(now); "$TIDY" --quiet --checks='-*,torch-*' "$FILE" -- "${FLAGS[@]}" >/dev/null 2>&1 || true; e=$(now)
  T_TIDY+=("$(echo "$e - $s" | bc)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
CC=$(median "${T_CC[@]}"); TT=$(median "${T_TIDY[@]}")
printf 'file: %s, runs: %s (interleaved)\n' "$FILE" "$RUNS"
printf 'clang++-22 -fsyntax-only   median %.3f s\n' "$CC"
printf 'torch-tidy --checks=torch-* median %.3f s\n' "$TT"
printf 'ratio torch-tidy / syntax-only: %.3f (target <= 1.05)\n' "$(echo "$TT / $CC" | bc -l)"
