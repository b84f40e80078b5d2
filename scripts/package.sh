#!/usr/bin/env bash
# Builds the Debian package build/torch-tidy_<version>_amd64.deb with CPack,
# then proves it: unpacks it into a scratch root (dpkg -x) and runs the
# installed torch-tidy over examples/, which must find every demo bug.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
(cd build && cpack -G DEB >/dev/null)
DEB="$(ls build/torch-tidy_*_amd64.deb)"
echo "package.sh: built $DEB"
dpkg-deb -f "$DEB" Package Version Depends

ROOT="$(mktemp -d)"
trap 'rm -rf "$ROOT"' EXIT
dpkg -x "$DEB" "$ROOT"
FLAGS="$(sed -n 's/^config.torch_flags = "\(.*\)"$/\1/p' build/test/lit.site.cfg.py)"
# shellcheck disable=SC2086
"$ROOT/usr/bin/torch-tidy" examples/train.cpp examples/model.cpp -- \
  $FLAGS -Iexamples 2>&1 \
  | /usr/lib/llvm-22/bin/FileCheck test/examples.test --implicit-check-not=warning:
echo "package.sh: the packaged torch-tidy finds every demo bug"
