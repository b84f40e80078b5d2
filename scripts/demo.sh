#!/usr/bin/env bash
# Sets everything up, then runs torch-tidy over the example project.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh torch-tidy
cmake -S examples -B build/examples -G Ninja -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
echo
echo "== torch-tidy -p build/examples examples/*.cpp"
build/bin/torch-tidy -p build/examples examples/model.cpp examples/train.cpp
