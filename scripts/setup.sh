#!/usr/bin/env bash
# Installs every system package torch-tidy needs to build, test and demo,
# and to build and test the release bundle (scripts/release.sh).
# Idempotent: installs only what is missing. Uses sudo when not root.
set -euo pipefail

PACKAGES=(
  cmake ninja-build git python3 python3-jsonschema python3-yaml bc
  clang-22 clang-tidy-22 clangd-22 libclang-22-dev llvm-22-dev llvm-22-tools
  libclang-rt-22-dev clang-format-22
  libtorch-dev nlohmann-json3-dev libyaml-cpp-dev
  python3-dev pybind11-dev
  lld-22 libzstd-dev zlib1g-dev binutils debootstrap twine python3-venv
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup.sh: need root or sudo to install packages" >&2; exit 1; }
  SUDO="sudo"
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all packages present"
else
  echo "setup.sh: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup.sh: done"
fi
# The second LibTorch the check tests run against (headers only). Without
# the network the tests still run, against one LibTorch (CMake says so).
"$(dirname "$0")/fetch-libtorch-headers.sh" ||
  echo "setup.sh: warning: no LibTorch 2.6 headers; the check tests will run against LibTorch 1.13 only" >&2
# CUDA extension code (torch/extension.h, ATen/cuda, c10/cuda, <<<...>>>):
# the CUDA LibTorch's and the CUDA toolkit's headers, for the CUDA tests and
# the syntax-only build of the harness's and the probe's CUDA code.
"$(dirname "$0")/fetch-cuda-headers.sh" ||
  echo "setup.sh: warning: no CUDA headers; the CUDA tests and the CUDA syntax check will be skipped" >&2
