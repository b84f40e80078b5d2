#!/usr/bin/env bash
# bench/parallel.sh [BUILD_DIR] [FILES] [JOBS]: a whole-codebase run over FILES
# (default 8) synthetic LibTorch translation units with -j JOBS (default 2)
# against -j 1, side by side in one run; prints wall times, the speed-up and
# the peak memory per worker. A benchmark, not a test.
#   PCH=0 bench/parallel.sh   parses <torch/torch.h> in full in every file
#                             (default: the tests' precompiled header)
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
FILES=${2:-8}
JOBS=${3:-2}
TT=$BUILD/bin/torch-tidy
SITE=$BUILD/test/lit.site.cfg.py
[ -x "$TT" ] || { echo "no $TT: build torch-tidy first" >&2; exit 2; }
FLAGS=$(sed -n 's/^config.torch_flags = "\(.*\)"$/\1/p' "$SITE")
PCHFILE=$(sed -n 's/^config.torch_pch = "\(.*\)"$/\1/p' "$SITE")
if [ "${PCH:-1}" = 1 ] && [ -f "$PCHFILE" ]; then
  FLAGS="$FLAGS -include-pch $PCHFILE"; MODE="with the precompiled header"
else
  MODE="parsing <torch/torch.h> in full"
fi

DIR=$(mktemp -d -t torch-tidy-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
for i in $(seq 1 "$FILES"); do
  cat > "$DIR/unit$i.cpp" <<CPP
#include <torch/torch.h>
torch::Tensor step$i(torch::nn::Linear &model, torch::Tensor x,
                     torch::Device device) {
  x.to(device);
  model->to(device);
  return model->forward(x).relu().sum(/*dim=*/0);
}
CPP
done
python3 - "$DIR" "$FLAGS" "$FILES" <<'PY'
import json, sys
d, flags, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
json.dump([{"directory": d, "file": "unit%d.cpp" % i,
            "command": "clang++ %s -c unit%d.cpp" % (flags, i)}
           for i in range(1, n + 1)], open(d + "/compile_commands.json", "w"))
PY

run() { # JOBS -> "seconds<TAB>stats line"
  local start end
  start=$(date +%s.%N)
  (cd "$DIR" && CI=1 "$TT" -p "$DIR" -j "$1" --format=json --output "$DIR/j$1.json" 2> "$DIR/j$1.log") || true
  end=$(date +%s.%N)
  printf '%s\t%s\n' "$(echo "$end - $start" | bc)" "$(grep '^Stats:' "$DIR/j$1.log")"
}
echo "torch-tidy batch benchmark: $FILES LibTorch TUs, $MODE, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=$'\t' read -r T1 S1 < <(run 1)
IFS=$'\t' read -r TN SN < <(run "$JOBS")
printf '  -j 1: %6.1f s   %s\n' "$T1" "$S1"
printf '  -j %s: %6.1f s   %s\n' "$JOBS" "$TN" "$SN"
printf '  speed-up -j %s vs -j 1: %.2fx\n' "$JOBS" "$(echo "$T1 / $TN" | bc -l)"
python3 - "$DIR/j1.json" "$DIR/j$JOBS.json" <<'PY'
import json, sys
counts = [json.load(open(p))["summary"]["findings"] for p in sys.argv[1:]]
print("  findings: %d with -j 1, %d in parallel%s" % (counts[0], counts[1],
      "" if counts[0] == counts[1] else "  MISMATCH"))
PY
