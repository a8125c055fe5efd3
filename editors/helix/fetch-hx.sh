#!/usr/bin/env bash
# fetch-hx.sh SUITE DIR: puts Debian SUITE's Helix (trixie: 25.01, sid: 25.07) in DIR, with the glibc
# and libgcc of that suite, and writes DIR/hx, a wrapper that runs it through that glibc's own loader
# (Helix is not in bookworm, and its binaries need a newer glibc). Only Debian's archive is reached,
# through apt with a sources list of its own: the machine's apt state is not touched. Does nothing
# when DIR/hx already runs.
set -euo pipefail
suite=${1:?usage: fetch-hx.sh SUITE DIR}
dir=${2:?usage: fetch-hx.sh SUITE DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -x "$dir/hx" ] && "$dir/hx" --version >/dev/null 2>&1; then
  exit 0
fi
apt_dir="$dir/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$dir/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list"
opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root")
apt-get "${opts[@]}" -qq update
(cd "$dir/debs" && apt-get "${opts[@]}" -qq download hx "libc6/$suite" "libgcc-s1/$suite")
rm -rf "$dir/root"
for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root"; done
lib="$dir/root/usr/lib/x86_64-linux-gnu"
cat >"$dir/hx" <<WRAPPER
#!/bin/sh
export HELIX_RUNTIME='$dir/root/usr/lib/hx/runtime'
exec '$lib/ld-linux-x86-64.so.2' --library-path '$lib' '$dir/root/usr/lib/hx/hx' "\$@"
WRAPPER
chmod 0755 "$dir/hx"
rm -rf "$dir/debs" "$apt_dir"
"$dir/hx" --version
