#!/usr/bin/env bash
# dist.sh VERSION: builds hermes-lsp for every system it ships on into dist/ (each binary with its
# sha256 in dist/SHA256SUMS), and a platform-specific VS Code package per target that bundles the
# matching binary (editors/vscode/server/hermes-lsp[.exe], which the extension runs when
# hermes.serverPath is not set): installing that .vsix is all a VS Code user does besides codex.
# Run through `make dist` (it installs the extension's npm dependencies first).
set -euo pipefail
version=${1:?usage: dist.sh VERSION}
go=${GO:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
dist="$root/dist"
vscode="$root/editors/vscode"
rm -rf "$dist"
mkdir -p "$dist"

# GOOS/GOARCH and the matching `vsce package --target`.
targets=(
  "linux amd64 linux-x64"
  "linux arm64 linux-arm64"
  "darwin amd64 darwin-x64"
  "darwin arm64 darwin-arm64"
  "windows amd64 win32-x64"
  "windows arm64 win32-arm64"
)

for t in "${targets[@]}"; do
  read -r goos goarch _ <<<"$t"
  ext=""; [ "$goos" = windows ] && ext=".exe"
  out="$dist/hermes-lsp-$version-$goos-$goarch$ext"
  echo "dist: $(basename "$out")"
  (cd "$root" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$go" build -trimpath \
    -ldflags "-s -w -X main.version=$version" -o "$out" ./cmd/hermes-lsp)
done
(cd "$dist" && sha256sum hermes-lsp-* >SHA256SUMS)

# The extension's bundle once; then each target's package with its binary in server/.
(cd "$vscode" && npm run --silent build)
trap 'rm -rf "$vscode/server"' EXIT
for t in "${targets[@]}"; do
  read -r goos goarch target <<<"$t"
  ext=""; [ "$goos" = windows ] && ext=".exe"
  rm -rf "$vscode/server"
  mkdir -p "$vscode/server"
  cp "$dist/hermes-lsp-$version-$goos-$goarch$ext" "$vscode/server/hermes-lsp$ext"
  chmod 0755 "$vscode/server/hermes-lsp$ext"
  vsix="$dist/hermes-lsp-$target-$version.vsix"
  echo "dist: $(basename "$vsix")"
  # vscode:prepublish rebuilt the bundle above; --no-dependencies: the bundle carries them.
  (cd "$vscode" && npx --no-install vsce package --no-dependencies --target "$target" --out "$vsix" >/dev/null)
done
(cd "$dist" && sha256sum hermes-lsp-*.vsix >>SHA256SUMS)
ls -l "$dist"
