#!/usr/bin/env bash
# Sets everything up, then runs torch-tidy over the example project.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh torch-tidy
cmake -S examples -B build/examples -G Ninja -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
echo
echo "== torch-tidy -p build/examples   (every file of the example project)"
# Exit status 0: findings are warnings. Add --warnings-as-errors='torch-*'
# to make them fail, as a CI gate would.
build/bin/torch-tidy -p build/examples -j "${JOBS:-2}"
