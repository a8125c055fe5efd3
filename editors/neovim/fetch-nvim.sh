#!/usr/bin/env bash
# fetch-nvim.sh [SUITE [DIR]]: puts Debian SUITE's Neovim (default forky: 0.12.x; trixie has only
# 0.10.4, bookworm 0.7.2) in DIR (default tools/neovim of the repository), with that suite's runtime
# files (neovim-runtime), the libraries it links and the suite's own glibc, and writes DIR/nvim, a
# wrapper that runs it through that glibc's loader (forky's Neovim needs glibc 2.42; bookworm has
# 2.36). Only Debian's archive is reached, through apt with a sources list and state of its own: the
# machine's apt state is not touched. Does nothing when DIR/nvim already runs.
# The Neovim test (neovim_test.go) uses DIR/nvim, or $HERMES_NVIM11, for its 0.11+ part.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=${1:-forky}
dir=${2:-$here/../../tools/neovim}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -x "$dir/nvim" ] && "$dir/nvim" --headless --clean -es +'qa!' </dev/null >/dev/null 2>&1; then
  exit 0
fi
apt_dir="$dir/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$dir/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list"
opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root")
apt-get "${opts[@]}" -qq update
# neovim's Depends in forky/sid (apt-get download does not follow them), and glibc with libgcc;
# trixie's 0.10 links a tree-sitter of its own and three libraries that 0.12 bundles.
pkgs=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common libtree-sitter0.26
  libunibilium4 libutf8proc3 libuv1t64 lua-lpeg lua-luv)
if [ "$suite" = trixie ]; then
  pkgs=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common libtree-sitter0.22
    libunibilium4 libutf8proc3 libuv1t64 lua-lpeg lua-luv libmsgpack-c2 libtermkey1 libvterm0)
fi
(cd "$dir/debs" && apt-get "${opts[@]}" -qq download "${pkgs[@]/%//$suite}")
rm -rf "$dir/root"
for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root"; done
lib="$dir/root/usr/lib/x86_64-linux-gnu"
# Neovim finds its bundled tree-sitter parsers (markdown, lua, vimdoc, ...) in <its exe's folder>/../lib/nvim;
# run through the loader, that folder is the loader's (usr/lib/x86_64-linux-gnu).
mkdir -p "$dir/root/usr/lib/lib"
ln -sfn ../nvim "$dir/root/usr/lib/lib/nvim"
# Not the project's files: keep git from listing them.
echo '*' >"$dir/.gitignore"
# VIMRUNTIME: the binary's compiled-in /usr/share/nvim is the machine's (0.7.2) runtime.
cat >"$dir/nvim" <<WRAPPER
#!/bin/sh
export VIMRUNTIME='$dir/root/usr/share/nvim/runtime'
exec '$lib/ld-linux-x86-64.so.2' --library-path '$lib' '$dir/root/usr/bin/nvim' "\$@"
WRAPPER
chmod 0755 "$dir/nvim"
rm -rf "$dir/debs" "$apt_dir"
"$dir/nvim" --version | head -1
