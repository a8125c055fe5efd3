#!/usr/bin/env bash
# need-debian.sh CHECK PACKAGE...: makes sure CHECK is there (a command on PATH, or, when it holds a
# '/', a path or glob that matches), installing the Debian/Ubuntu PACKAGEs with apt-get when it is
# not (through sudo when not root). make test uses it for nvim (the Neovim plugin's test) and Emacs
# with lsp-mode and eglot (the Emacs client's test), make test-helix for tmux, so that a fresh
# machine needs only Go, Node/npm and apt beforehand. Anywhere else it says what to install and fails.
set -euo pipefail
cmd=${1:?usage: need-debian.sh CHECK PACKAGE...}
shift
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || { echo "usage: need-debian.sh CHECK PACKAGE..." >&2; exit 2; }
pkg="${pkgs[*]}"
present() {
  case "$cmd" in
    */*) compgen -G "$cmd" >/dev/null ;;
    *) command -v "$cmd" >/dev/null 2>&1 ;;
  esac
}
if present; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "need-debian.sh: $cmd is missing and there is no apt-get here: install $pkg (the package that has $cmd) and run make again" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "need-debian.sh: $cmd is missing: run 'apt-get install $pkg' as root, then make again" >&2
    exit 1
  fi
  sudo="sudo -n" # never prompt inside make: a password-protected sudo fails with the hint below
fi
echo "need-debian.sh: installing $pkg for $cmd (apt-get)" >&2
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null; }; then
  echo "need-debian.sh: could not install $pkg: run 'sudo apt-get install $pkg' yourself, then make again" >&2
  exit 1
fi
present || { echo "need-debian.sh: $pkg installed but $cmd is still missing" >&2; exit 1; }
