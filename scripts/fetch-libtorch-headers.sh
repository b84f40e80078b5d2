#!/usr/bin/env bash
# Fetches LibTorch 2.6.0's headers (Debian 13 "trixie" libtorch-dev) into
# build/libtorch-2.6 without installing the package: installing it would pull
# in a newer libc, and the analysis needs only the headers. Uses a private
# apt configuration (scripts/trixie-apt.sh), `apt-get download` and
# `dpkg -x`. Idempotent, and offline once done.
# Usage: scripts/fetch-libtorch-headers.sh [DEST]
set -euo pipefail
cd "$(dirname "$0")/.."
DEST="${1:-build/libtorch-2.6}"
if [ -f "$DEST/usr/include/torch/csrc/api/include/torch/torch.h" ]; then
  echo "fetch-libtorch-headers.sh: LibTorch 2.6 headers present in $DEST"
  exit 0
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=scripts/trixie-apt.sh
. scripts/trixie-apt.sh
trixie_download "$WORK" libtorch-dev
rm -rf "$DEST.tmp"
mkdir -p "$DEST.tmp"
dpkg -x "$WORK"/libtorch-dev_*.deb "$DEST.tmp"
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"
echo "fetch-libtorch-headers.sh: LibTorch $(dpkg-deb -f "$WORK"/libtorch-dev_*.deb Version) headers in $DEST"
