#!/usr/bin/env bash
# Builds the release bundle and its wheel (docs/install.md):
#   build/release/torch-tidy-<version>-linux-<arch>.tar.gz
#   build/release/torch_tidy-<version>-py3-none-manylinux_<glibc>_<arch>.whl
# Both hold torch-tidy and torch-clangd linked statically against LLVM,
# Clang, zlib, zstd and libstdc++, with only glibc dynamic, linked against
# Debian 11's glibc (build/chroots/bullseye, scripts/fetch-chroot.sh), and
# clang's resource headers in lib/clang/N/include, found relative to the
# executable. The manylinux tag is the newest glibc symbol version the
# binaries ask for. Tests: scripts/test-release.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
scripts/fetch-chroot.sh bullseye
TORCH_TIDY_CMAKE_ARGS="-DTORCH_TIDY_BUNDLE=ON -DTORCH_TIDY_BUNDLE_SYSROOT=$PWD/build/chroots/bullseye" \
  scripts/build.sh torch-tidy-bundle torch-clangd-bundle >/dev/null

BIN=build/bundle/bin
VERSION="$("$BIN/torch-tidy" --version | sed -n 's/^torch-tidy version //p')"
ARCH="$(uname -m)"
GLIBC="$(objdump -T "$BIN/torch-tidy" "$BIN/torch-clangd" |
  grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
RESOURCES="$(sed -n 's/^TORCH_TIDY_RESOURCE_DIR:PATH=//p' build/CMakeCache.txt)"
NAME="torch-tidy-$VERSION-linux-$ARCH"
STAGE="build/release/$NAME"

rm -rf "$STAGE" build/release/*.tar.gz build/release/*.whl
mkdir -p "$STAGE/bin" "$STAGE/lib/clang/$(basename "$RESOURCES")"
cp "$BIN/torch-tidy" "$BIN/torch-clangd" "$STAGE/bin/"
cp -rL "$RESOURCES/include" "$STAGE/lib/clang/$(basename "$RESOURCES")/"
cp README.md "$STAGE/"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
  -C build/release -cf - "$NAME" | gzip -n >"build/release/$NAME.tar.gz"
WHEEL="$(python3 scripts/make_wheel.py "$STAGE" "$VERSION" \
  "manylinux_${GLIBC/./_}_$ARCH" build/release)"
for F in "build/release/$NAME.tar.gz" "$WHEEL"; do
  echo "release.sh: $F ($(du -m "$F" | cut -f1) MB)"
done
echo "release.sh: needs glibc >= $GLIBC"
