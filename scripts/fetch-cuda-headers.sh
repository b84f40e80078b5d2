#!/usr/bin/env bash
# Fetches what parsing CUDA extension code needs, without a GPU and without
# installing anything: Debian 13 "trixie" packages, downloaded with a private
# apt configuration (scripts/trixie-apt.sh) and unpacked under build/:
#
#   build/libtorch-cuda-2.6/usr/include   libtorch-cuda-dev 2.6.0 (contrib):
#                                         LibTorch built with CUDA (ATen/cuda,
#                                         c10/cuda, torch/csrc/cuda, ...)
#   build/cuda-12.4/                      a CUDA root for clang's --cuda-path:
#     include/                            nvidia-cuda-dev 12.4's headers
#                                         (non-free; only ./usr/include of its
#                                         934 MB package), libcu++-dev,
#                                         libcub-dev, libthrust-dev
#     nvvm/libdevice/libdevice.10.bc      from nvidia-cuda-toolkit
#     bin/                                empty: clang requires the folder
#
# Idempotent, and offline once done (a marker file records completion).
# Needs the network once; without it, it fails and scripts/setup.sh says the
# CUDA tests will be skipped.
# Usage: scripts/fetch-cuda-headers.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
TORCH_DEST="$BUILD/libtorch-cuda-2.6"
CUDA_DEST="$BUILD/cuda-12.4"
MARK="$CUDA_DEST/.fetched"
if [ -f "$MARK" ] && [ -f "$TORCH_DEST/usr/include/ATen/cuda/CUDAContext.h" ]; then
  echo "fetch-cuda-headers.sh: CUDA $(cat "$MARK") present in $CUDA_DEST and $TORCH_DEST"
  exit 0
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
COMPONENTS="main contrib non-free"
# shellcheck source=scripts/trixie-apt.sh
. scripts/trixie-apt.sh
trixie_download "$WORK/debs" libtorch-cuda-dev nvidia-cuda-dev \
  nvidia-cuda-toolkit libcu++-dev libcub-dev libthrust-dev

deb() { ls "$WORK"/debs/"$1"_*.deb; }
rm -rf "$TORCH_DEST.tmp" "$CUDA_DEST.tmp"
mkdir -p "$TORCH_DEST.tmp" "$CUDA_DEST.tmp/unpacked" "$CUDA_DEST.tmp/bin" \
  "$CUDA_DEST.tmp/nvvm"
dpkg -x "$(deb libtorch-cuda-dev)" "$TORCH_DEST.tmp"
# The toolkit headers only: the package's 2.5 GB of libraries are not needed.
dpkg-deb --fsys-tarfile "$(deb nvidia-cuda-dev)" |
  tar -x -C "$CUDA_DEST.tmp/unpacked" ./usr/include
dpkg-deb --fsys-tarfile "$(deb nvidia-cuda-toolkit)" |
  tar -x -C "$CUDA_DEST.tmp/unpacked" ./usr/lib/nvidia-cuda-toolkit/libdevice
for p in libcu++-dev libcub-dev libthrust-dev; do
  dpkg -x "$(deb "$p")" "$CUDA_DEST.tmp/unpacked"
done
mv "$CUDA_DEST.tmp/unpacked/usr/include" "$CUDA_DEST.tmp/include"
mv "$CUDA_DEST.tmp/unpacked/usr/lib/nvidia-cuda-toolkit/libdevice" \
  "$CUDA_DEST.tmp/nvvm/libdevice"
rm -rf "$CUDA_DEST.tmp/unpacked"
[ -f "$CUDA_DEST.tmp/include/cuda_runtime.h" ] &&
  [ -f "$CUDA_DEST.tmp/include/thrust/version.h" ] &&
  [ -f "$CUDA_DEST.tmp/nvvm/libdevice/libdevice.10.bc" ] &&
  [ -f "$TORCH_DEST.tmp/usr/include/c10/cuda/CUDAGuard.h" ] || {
  echo "fetch-cuda-headers.sh: error: the unpacked packages lack expected headers" >&2
  exit 1
}
dpkg-deb -f "$(deb nvidia-cuda-dev)" Version > "$CUDA_DEST.tmp/.fetched"
rm -rf "$TORCH_DEST" "$CUDA_DEST"
mv "$TORCH_DEST.tmp" "$TORCH_DEST"
mv "$CUDA_DEST.tmp" "$CUDA_DEST"
echo "fetch-cuda-headers.sh: LibTorch $(dpkg-deb -f "$(deb libtorch-cuda-dev)" Version) (CUDA) headers in $TORCH_DEST; CUDA $(cat "$MARK") root in $CUDA_DEST ($(du -sh "$CUDA_DEST" | cut -f1))"
