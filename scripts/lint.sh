#!/usr/bin/env bash
# torch-tidy on itself: clang-format (LLVM style) over checks/, tool/ and probe/, then
# torch-tidy's own checks plus a small clang-tidy profile (bugprone,
# performance) over the project's sources, as errors. Needs build/ (with its
# compile_commands.json): run scripts/build.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
SOURCES=(checks/*.cpp checks/*/*.cpp tool/*.cpp tool/*/*.cpp probe/*.cpp)
# tool/bundle/ is compiled only where the release bundle is configured
# (scripts/release.sh); elsewhere it has no compile command to lint with.
if ! grep -q 'tool/bundle/NoZ3.cpp' build/compile_commands.json 2>/dev/null; then
  mapfile -t SOURCES < <(printf '%s\n' "${SOURCES[@]}" | grep -v '^tool/bundle/')
fi
HEADERS=(checks/*.h checks/*/*.h tool/*.h tool/*/*.h)
clang-format-22 --dry-run -Werror "${SOURCES[@]}" "${HEADERS[@]}"
echo "lint: clang-format clean"
# Left out: bugprone-easily-swappable-parameters and
# bugprone-narrowing-conversions flag LLVM's own idioms (unsigned offsets,
# paired StringRefs) far more than bugs; bugprone-throwing-static-initialization
# flags the registry objects every clang-tidy module and LLVM tool declares
# (an allocation failure at start-up ends the program either way);
# bugprone-derived-method-shadowing-base-method flags every Visit* method of
# a RecursiveASTVisitor, which is how that CRTP base is meant to be used.
# A return value is ignored on purpose only through a visible (void) cast.
CHECKS='-*,torch-*,bugprone-*,performance-*,-bugprone-easily-swappable-parameters,-bugprone-narrowing-conversions,-bugprone-throwing-static-initialization,-bugprone-derived-method-shadowing-base-method'
CONFIG='{CheckOptions: {bugprone-unused-return-value.AllowCastToVoid: true}}'
build/bin/torch-tidy -p build -j "${JOBS:-2}" --quiet --checks="$CHECKS" --config="$CONFIG" \
  --warnings-as-errors='*' --header-filter="$(pwd)/(checks|tool|probe)/" "${SOURCES[@]}"
