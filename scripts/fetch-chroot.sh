#!/usr/bin/env bash
# Makes build/chroots/SUITE: a minimal Debian SUITE root (debootstrap from
# deb.debian.org) with a C++ standard library, for the release bundle. The
# oldest one is the sysroot the bundle is linked against (its glibc);
# every one is a root the bundle is tested in (scripts/test-release.sh).
# Absolute library symlinks become relative, so that a linker given
# --sysroot finds the root's libraries, not the host's. Idempotent, and
# offline once done.
# Usage: scripts/fetch-chroot.sh SUITE   (bullseye, bookworm, trixie)
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE="${1:?usage: fetch-chroot.sh SUITE}"
case "$SUITE" in
  bullseye) CXXLIB=libstdc++-10-dev ;;
  bookworm) CXXLIB=libstdc++-12-dev ;;
  trixie) CXXLIB=libstdc++-14-dev ;;
  *) echo "fetch-chroot.sh: unknown suite '$SUITE'" >&2; exit 2 ;;
esac
ROOT="build/chroots/$SUITE"
if [ -f "$ROOT/.torch-tidy-root" ]; then
  echo "fetch-chroot.sh: $ROOT present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
command -v debootstrap >/dev/null ||
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq debootstrap >/dev/null
rm -rf "$ROOT.tmp"
mkdir -p "$(dirname "$ROOT")"
$SUDO debootstrap --variant=minbase --include="libc6-dev,$CXXLIB" \
  "$SUITE" "$ROOT.tmp" http://deb.debian.org/debian >"$ROOT.log" 2>&1 || {
  tail -n 5 "$ROOT.log" >&2
  echo "fetch-chroot.sh: debootstrap $SUITE failed (log: $ROOT.log)" >&2
  exit 1
}
# /lib64/ld-linux-x86-64.so.2 -> /lib/..., libpthread.so -> /lib/...: seen
# from outside the root those point at the host's files.
(cd "$ROOT.tmp" && find usr/lib usr/lib64 -type l -lname '/*' -print0 |
  while IFS= read -r -d '' LINK; do
    TARGET="$(readlink "$LINK")"
    $SUDO ln -sfn "$(realpath -m --relative-to="$(dirname "$LINK")" ".$TARGET")" "$LINK"
  done)
$SUDO touch "$ROOT.tmp/.torch-tidy-root"
rm -rf "$ROOT"
mv "$ROOT.tmp" "$ROOT"
echo "fetch-chroot.sh: Debian $SUITE (libc6 $(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f='${Version}' libc6)) in $ROOT"
