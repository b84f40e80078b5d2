#!/usr/bin/env bash
# Tests what scripts/release.sh built (docs/install.md):
#  1. each bundled binary needs only glibc's libraries, no glibc newer than
#     the wheel's manylinux tag, and holds no path of this build;
#  2. the bundle, unpacked into a folder of its own in a Debian 11 and a
#     Debian 13 root (scripts/fetch-chroot.sh; no LLVM installed there),
#     prints its version and checks, finds clang's headers beside itself
#     (torch-tidy and torch-clangd),
#     and gives the build tree's findings on examples/ (one run per file
#     and one over a compilation database), with LibTorch 2.6's headers
#     copied in at the paths they have here;
#  3. the wheel passes twine's metadata check, installs into a fresh
#     virtual environment with pip, and its torch-tidy gives the same
#     findings.
# Needs root (chroot, mount). Usage: scripts/test-release.sh [SUITE...]
set -euo pipefail
cd "$(dirname "$0")/.."
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(bullseye trixie)
fail() { echo "test-release.sh: FAIL: $*" >&2; exit 1; }
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

TARBALL="$(ls build/release/torch-tidy-*-linux-*.tar.gz)"
WHEEL="$(ls build/release/torch_tidy-*-py3-none-manylinux_*.whl)"
NAME="$(basename "$TARBALL" .tar.gz)"
TAG_GLIBC="$(echo "$WHEEL" | sed 's/.*manylinux_\([0-9]*\)_\([0-9]*\)_.*/\1.\2/')"
WORK="$(mktemp -d)"
MOUNTS=()
cleanup() {
  for M in "${MOUNTS[@]}"; do $SUDO umount "$M" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
tar -xzf "$TARBALL" -C "$WORK"

# 1. What the binaries need.
for B in "$WORK/$NAME"/bin/*; do
  OTHERS="$(ldd "$B" | awk '{print $1}' |
    grep -vE '^(linux-vdso\.so\.1|lib(c|m|pthread|dl|rt)\.so\.[0-9]+|/lib64/ld-linux-x86-64\.so\.2)$' || true)"
  [ -z "$OTHERS" ] || fail "$(basename "$B") needs $OTHERS"
  NEWEST="$(objdump -T "$B" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
  [ "$(printf '%s\n%s\n' "$NEWEST" "$TAG_GLIBC" | sort -V | tail -n 1)" = "$TAG_GLIBC" ] ||
    fail "$(basename "$B") needs glibc $NEWEST, the wheel says $TAG_GLIBC"
  ! grep -q "$PWD" "$B" || fail "$(basename "$B") holds the build path $PWD"
  echo "test-release.sh: $(basename "$B"): only glibc, glibc >= $NEWEST, no build path"
done

# The reference: the build tree's torch-tidy on the same inputs.
LT="$PWD/build/libtorch-2.6/usr/include"
[ -f "$LT/torch/csrc/api/include/torch/torch.h" ] || fail "no LibTorch 2.6 headers in $LT"
FLAGS="-std=c++17 -isystem $LT/torch/csrc/api/include -isystem $LT -Iexamples"
python3 - "$PWD" "$FLAGS" "$WORK/db/compile_commands.json" <<'PY'
import json, os, sys
root, flags, out = sys.argv[1:]
os.makedirs(os.path.dirname(out))
json.dump([{"directory": root, "file": f, "command": f"c++ {flags} -c {f} -o /dev/null"}
           for f in ("examples/train.cpp", "examples/model.cpp")], open(out, "w"), indent=1)
PY
# shellcheck disable=SC2086
build/bin/torch-tidy examples/train.cpp examples/model.cpp -- $FLAGS >"$WORK/single.expected" 2>&1
# The database run's "Stats:" line (seconds, memory) is not a finding.
batch_findings() { grep -v '^Stats: '; }
build/bin/torch-tidy -p "$WORK/db" -j 2 2>&1 | batch_findings >"$WORK/batch.expected"
build/bin/torch-tidy --list-checks >"$WORK/checks.expected"
[ "$(grep -c 'warning:' "$WORK/single.expected")" -ge 7 ] || fail "the build tree finds too little"

# 2. The bundle in older and newer Debian roots.
for SUITE in "${SUITES[@]}"; do
  scripts/fetch-chroot.sh "$SUITE" >/dev/null
  ROOT="$PWD/build/chroots/$SUITE"
  [ ! -e "$ROOT/usr/lib/llvm-22" ] || fail "$SUITE has LLVM 22 installed"
  PREFIX="/opt/unpacked-$RANDOM/$NAME"
  $SUDO mkdir -p "$ROOT$(dirname "$PREFIX")" "$ROOT$PWD" "$ROOT$WORK" "$ROOT$(dirname "$LT")"
  $SUDO tar -xzf "$TARBALL" -C "$ROOT$(dirname "$PREFIX")"
  $SUDO rm -rf "$ROOT$PWD/examples" "$ROOT$WORK/db"
  $SUDO cp -r examples "$ROOT$PWD/"
  $SUDO cp -r "$WORK/db" "$ROOT$WORK/"
  [ -d "$ROOT$LT" ] || $SUDO cp -r "$LT" "$ROOT$LT"
  if $SUDO mount -t proc proc "$ROOT/proc" 2>/dev/null; then
    MOUNTS+=("$ROOT/proc")
  else
    echo "test-release.sh: $SUITE: no /proc in the root (mount refused); the bundle finds itself from argv[0]"
  fi
  inroot() { $SUDO chroot "$ROOT" /bin/sh -c "cd $PWD && $*"; }
  GLIBC_HERE="$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f='${Version}' libc6)"
  # Outputs are read whole before grep -q: under pipefail, a writer that
  # grep -q leaves behind dies of SIGPIPE and fails the pipe at random.
  VERSION="$(inroot "$PREFIX/bin/torch-tidy --version")"
  grep -q "torch-tidy version" <<<"$VERSION" ||
    fail "$SUITE: torch-tidy --version"
  VERSION="$(inroot "$PREFIX/bin/torch-clangd --version")"
  grep -q "clangd version" <<<"$VERSION" ||
    fail "$SUITE: torch-clangd --version"
  inroot "$PREFIX/bin/torch-tidy --list-checks" | diff -u "$WORK/checks.expected" - ||
    fail "$SUITE: --list-checks differs"
  echo '#include <stddef.h>' | $SUDO tee "$ROOT$WORK/probe.cpp" >/dev/null
  SEARCH="$(inroot "$PREFIX/bin/torch-tidy $WORK/probe.cpp -- -v" 2>&1)"
  grep -q "^ $PREFIX/lib/clang/[0-9]*/include\$" <<<"$SEARCH" ||
    fail "$SUITE: a single-file run does not search $PREFIX/lib/clang/*/include"
  CLANGD="$(inroot "$PREFIX/bin/torch-clangd --check=$WORK/probe.cpp" 2>&1)"
  grep -q -- "-resource-dir=$PREFIX/lib/clang/" <<<"$CLANGD" &&
    grep -q "All checks completed, 0 errors" <<<"$CLANGD" ||
    fail "$SUITE: torch-clangd --check does not parse with $PREFIX/lib/clang"
  inroot "$PREFIX/bin/torch-tidy examples/train.cpp examples/model.cpp -- $FLAGS" 2>&1 |
    diff -u "$WORK/single.expected" - || fail "$SUITE: findings of the single-file run differ"
  inroot "$PREFIX/bin/torch-tidy -p $WORK/db -j 2" 2>&1 | batch_findings |
    diff -u "$WORK/batch.expected" - || fail "$SUITE: findings of the database run differ"
  echo "test-release.sh: Debian $SUITE (libc6 $GLIBC_HERE): --version, --list-checks, torch-tidy's and torch-clangd's resource headers from $PREFIX, findings equal the build tree's"
  if [ ${#MOUNTS[@]} -gt 0 ] && [ "${MOUNTS[-1]}" = "$ROOT/proc" ]; then
    $SUDO umount "$ROOT/proc"
    unset 'MOUNTS[-1]'
  fi
done

# 3. The wheel.
if command -v twine >/dev/null; then
  twine check --strict "$WHEEL" || fail "twine check"
else
  fail "no twine (scripts/setup.sh installs it)"
fi
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --no-index --no-deps "$WHEEL"
[ "$(PATH="$WORK/venv/bin:$PATH" command -v torch-tidy)" = "$WORK/venv/bin/torch-tidy" ] ||
  fail "pip did not put torch-tidy on the venv's PATH"
VERSION="$(PATH="$WORK/venv/bin:$PATH" torch-clangd --version)"
grep -q "clangd version" <<<"$VERSION" ||
  fail "the wheel's torch-clangd"
# shellcheck disable=SC2086
PATH="$WORK/venv/bin:$PATH" torch-tidy examples/train.cpp examples/model.cpp -- $FLAGS 2>&1 |
  diff -u "$WORK/single.expected" - || fail "findings of the wheel's torch-tidy differ"
echo "test-release.sh: $(basename "$WHEEL"): twine check, pip install into a fresh venv, findings equal the build tree's"
echo "test-release.sh: all passed"
