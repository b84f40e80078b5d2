#!/usr/bin/env bash
# torch-tidy on itself: clang-format (LLVM style) over checks/ and tool/, then
# torch-tidy's own checks plus a small clang-tidy profile (bugprone,
# performance) over the project's sources, as errors. Needs build/ (with its
# compile_commands.json): run scripts/build.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
SOURCES=(checks/*.cpp checks/utils/*.cpp tool/*.cpp)
HEADERS=(checks/*.h checks/utils/*.h tool/*.h)
clang-format-22 --dry-run -Werror "${SOURCES[@]}" "${HEADERS[@]}"
echo "lint: clang-format clean"
# Left out: bugprone-easily-swappable-parameters and
# bugprone-narrowing-conversions flag LLVM's own idioms (unsigned offsets,
# paired StringRefs) far more than bugs.
CHECKS='-*,torch-*,bugprone-*,performance-*,-bugprone-easily-swappable-parameters,-bugprone-narrowing-conversions'
build/bin/torch-tidy -p build -j "${JOBS:-2}" --quiet --checks="$CHECKS" \
  --warnings-as-errors='*' --header-filter="$(pwd)/(checks|tool)/" "${SOURCES[@]}"
