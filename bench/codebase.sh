#!/usr/bin/env bash
# bench/codebase.sh [BUILD_DIR] [UNITS] [JOBS]: a whole codebase of UNITS
# (default 10) LibTorch translation units, each parsing <torch/torch.h> in
# full, analysed at -j JOBS (default 2), side by side in one run:
#   anchor  stock clang-tidy-22 --load TorchTidyPlugin.so, one process per
#           file (xargs -P JOBS), as CMAKE_CXX_CLANG_TIDY or run-clang-tidy do
#   cold    torch-tidy -p with an empty result cache (shared preamble on)
#   warm    the same again, nothing changed
#   edited  one unit edited (a new finding in it)
# Prints the wall times, anchor/cold and anchor/warm, and checks that every
# mode reports the same findings and that the edited run re-analyses only
# the edited unit and reports its new finding. A benchmark, not a test.
#
# bench/codebase.sh --projects [BUILD_DIR] [JOBS]: the same on the real
# projects of the evaluation (their databases, written by
# scripts/evaluate.py and scripts/evaluate.py --set training-heldout, under
# BUILD_DIR/eval and BUILD_DIR/eval-heldout), merged into one database:
# the anchor, a cold torch-tidy run, and a cold run with
# --shared-preamble=off, whose report must be byte-identical. Prints the
# units that shared a preamble and anchor / cold.
#
# bench/codebase.sh --extensions [BUILD_DIR] [JOBS] [SET...]: the same on
# C++/CUDA extension projects (nvcc databases), plus a warm run; the anchor
# reads the database torch-tidy exports (--export-database: every CUDA
# entry as clang's host-side command), as a stock clang-tidy user would.
# SETs are work folders under BUILD_DIR; the default, eval-cuda-bench, is
# mmcv's CUDA ops, PyTorch3D and apex's csrc, 163 units, 114 of them .cu
# (scripts/evaluate.py --set cuda-bench --database-only); the evaluation's
# extension sets are eval-cuda, eval-cuda-heldout and eval-cuda-heldout2.
set -euo pipefail
if [ "${1:-}" = --projects ] || [ "${1:-}" = --extensions ]; then
  MODE=$1
  BUILD=$(cd "${2:-build}" && pwd)
  JOBS=${3:-2}
  TT=$BUILD/bin/torch-tidy
  PLUGIN=$BUILD/lib/TorchTidyPlugin.so
  [ -x "$TT" ] && [ -f "$PLUGIN" ] || { echo "build torch-tidy first" >&2; exit 2; }
  if [ "$MODE" = --projects ]; then
    SETS="eval eval-heldout"; WHAT="the evaluation's projects"; EXTRA=()
  else
    SETS="${*:4}"
    SETS=${SETS:-eval-cuda-bench}
    WHAT="extension projects ($SETS)"
    EXTRA=(--cuda-path="$BUILD/cuda-12.4")
  fi
  for d in $SETS; do
    [ -f "$BUILD/$d/compile_commands.json" ] || {
      echo "no $BUILD/$d/compile_commands.json: run scripts/evaluate.py (--set for each; --set cuda-bench --database-only) first" >&2
      exit 2; }
  done
  DIR=$(mktemp -d -t torch-tidy-projects.XXXXXX)
  trap 'rm -rf "$DIR"' EXIT
  python3 - "$BUILD" "$DIR" $SETS <<'PY'
import json, sys
b, d = sys.argv[1], sys.argv[2]
db = [e for s in sys.argv[3:]
      for e in json.load(open("%s/%s/compile_commands.json" % (b, s)))]
json.dump(db, open(d + "/compile_commands.json", "w"), indent=1)
open(d + "/files", "w").write("".join(e["file"] + "\n" for e in db))
PY
  ANCHOR_DB=$DIR
  if [ "$MODE" = --extensions ]; then
    "$TT" -p "$DIR" "${EXTRA[@]}" --export-database "$DIR/clang" >/dev/null
    ANCHOR_DB=$DIR/clang
  fi
  N=$(wc -l < "$DIR/files")
  now() { date +%s.%N; }
  timed() { local s e; s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc; }
  anchor() { xargs -P "$JOBS" -I{} clang-tidy-22 --load "$PLUGIN" \
    --checks='-*,torch-*' --quiet -p "$ANCHOR_DB" {} < "$DIR/files"; }
  tidy() { # NAME [ARGS]: a torch-tidy batch run
    local n=$1; shift
    (cd "$DIR" && CI=1 "$TT" -p "$DIR" -j "$JOBS" --checks='-*,torch-*' \
      "${EXTRA[@]}" --format=json --output "$DIR/$n.json" "$@" 2> "$DIR/$n.log"); }
  echo "torch-tidy projects benchmark: $N units of $WHAT, -j $JOBS, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  TA=$(timed anchor)
  TC=$(timed tidy cold --cache-dir "$DIR/cache")
  TW=$(timed tidy warm --cache-dir "$DIR/cache")
  TO=$(timed tidy off --shared-preamble=off)
  printf '  anchor (clang-tidy-22 --load, per file): %7.1f s\n' "$TA"
  printf '  torch-tidy, cold:                        %7.1f s   %s\n' "$TC" "$(grep '^Stats:' "$DIR/cold.log")"
  printf '  torch-tidy, warm:                        %7.1f s\n' "$TW"
  printf '  torch-tidy, cold, no shared preamble:    %7.1f s   %s\n' "$TO" "$(grep '^Stats:' "$DIR/off.log")"
  printf '  anchor / cold: %.2f   anchor / warm: %.1f   off / cold: %.2f\n' \
    "$(echo "$TA / $TC" | bc -l)" "$(echo "$TA / $TW" | bc -l)" "$(echo "$TO / $TC" | bc -l)"
  cmp -s "$DIR/cold.json" "$DIR/off.json" \
    && echo "  shared preamble on and off: byte-identical reports" \
    || echo "  shared preamble on and off: reports DIFFER"
  exit 0
fi
BUILD=$(cd "${1:-build}" && pwd)
UNITS=${2:-10}
JOBS=${3:-2}
TT=$BUILD/bin/torch-tidy
PLUGIN=$BUILD/lib/TorchTidyPlugin.so
[ -x "$TT" ] && [ -f "$PLUGIN" ] || { echo "build torch-tidy first" >&2; exit 2; }
FLAGS=$(sed -n 's/^config.torch_flags = "\(.*\)"$/\1/p' "$BUILD/test/lit.site.cfg.py")

DIR=$(mktemp -d -t torch-tidy-codebase.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
for i in $(seq 1 "$UNITS"); do
  cat > "$DIR/unit$i.cpp" <<CPP
// unit $i of a small training codebase
#include <torch/torch.h>
#include <vector>

struct Net$i : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  Net$i() { fc = register_module("fc", torch::nn::Linear(8, 1)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
};

double train$i(Net$i &net, torch::optim::SGD &opt, torch::Device device) {
  double total = 0;
  for (int step = 0; step < 100; ++step) {
    torch::Tensor x = torch::randn({16, 8}).to(device);
    x.to(device);
    opt.zero_grad();
    torch::Tensor loss = net.forward(x).pow(2).mean();
    loss.backward();
    opt.step();
    total += loss.item<double>();
  }
  return total;
}
CPP
done
python3 - "$DIR" "$FLAGS" "$UNITS" <<'PY'
import json, sys
d, flags, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
json.dump([{"directory": d, "file": "unit%d.cpp" % i,
            "command": "clang++ %s -c unit%d.cpp -o unit%d.o" % (flags, i, i)}
           for i in range(1, n + 1)], open(d + "/compile_commands.json", "w"))
PY

now() { date +%s.%N; }
# The anchor's findings, one "file:line:col: check" per line.
anchor() {
  (cd "$DIR" && ls unit*.cpp | xargs -P "$JOBS" -I{} \
    clang-tidy-22 --load "$PLUGIN" --checks='-*,torch-*' --quiet -p "$DIR" {} \
    2>/dev/null) | sed -n 's/^\([^ ]*:[0-9]*:[0-9]*\): warning: .*\[\(torch-[a-z-]*\)\]$/\1: \2/p' \
    | sed "s|^$DIR/||" | sort > "$DIR/$1.findings"
}
tidy() { # NAME: a torch-tidy batch run with the cache
  (cd "$DIR" && CI=1 "$TT" -p "$DIR" -j "$JOBS" --cache-dir "$DIR/cache" \
    --format=json --output "$DIR/$1.json" 2> "$DIR/$1.log") || true
  python3 - "$DIR/$1.json" > "$DIR/$1.findings" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    print("%s:%d:%d: %s" % (f["file"], f["line"], f["column"], f["check"]))
PY
  sort -o "$DIR/$1.findings" "$DIR/$1.findings"
}
timed() { local s e; s=$(now); "$@"; e=$(now); echo "$e - $s" | bc; }

echo "torch-tidy codebase benchmark: $UNITS LibTorch units, -j $JOBS, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
TA=$(timed anchor anchor)
TC=$(timed tidy cold)
TW=$(timed tidy warm)
cat >> "$DIR/unit1.cpp" <<'CPP'
void edited(torch::Tensor t, torch::Device d) { t.cuda(); }
CPP
TE=$(timed tidy edited)

printf '  anchor (clang-tidy-22 --load, per file): %7.1f s\n' "$TA"
printf '  torch-tidy, empty cache:                 %7.1f s   %s\n' "$TC" "$(grep '^Stats:' "$DIR/cold.log")"
printf '  torch-tidy, warm cache:                  %7.2f s   %s\n' "$TW" "$(grep '^Stats:' "$DIR/warm.log")"
printf '  torch-tidy, one unit edited:             %7.1f s   %s\n' "$TE" "$(grep '^Stats:' "$DIR/edited.log")"
printf '  anchor / cold: %.2f   anchor / warm: %.1f\n' \
  "$(echo "$TA / $TC" | bc -l)" "$(echo "$TA / $TW" | bc -l)"
for m in cold warm; do
  cmp -s "$DIR/anchor.findings" "$DIR/$m.findings" \
    && echo "  $m: the same $(wc -l < "$DIR/$m.findings") findings as the anchor" \
    || echo "  $m: findings DIFFER from the anchor"
done
NEW=$(comm -13 "$DIR/warm.findings" "$DIR/edited.findings")
grep -q 'cache [0-9]* hits 1 misses' "$DIR/edited.log" \
  && echo "  edited: only the edited unit was analysed; new finding: ${NEW:-NONE}" \
  || echo "  edited: UNEXPECTED re-analysis: $(grep '^Stats:' "$DIR/edited.log")"
