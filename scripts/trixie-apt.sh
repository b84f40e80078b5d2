# Sourced by the fetch scripts: a private apt configuration for Debian 13
# "trixie" (sources list, lists and cache under $WORK), so that its packages
# can be downloaded and unpacked without installing them: installing them
# would pull in a newer libc. Defines APT (apt-get options) and
# trixie_download DIR PACKAGE...; needs WORK set and the network once.
# COMPONENTS (default "main") names the archive areas to read.
APT=(-o "Dir::Etc::SourceList=$WORK/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$WORK/lists" -o "Dir::Cache=$WORK/cache"
     -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
trixie_download() {
  local dir=$1
  shift
  if [ ! -f "$WORK/sources.list" ]; then
    mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie ${COMPONENTS:-main}" \
      > "$WORK/sources.list"
    apt-get "${APT[@]}" -qq update
  fi
  mkdir -p "$dir"
  (cd "$dir" && apt-get "${APT[@]}" -qq download "$@" 2>/dev/null)
}
