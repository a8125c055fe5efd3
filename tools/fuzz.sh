#!/usr/bin/env bash
# fuzz.sh TARGET PACKAGE FUZZTIME: runs one Go fuzz target for FUZZTIME and fails on a finding.
#
# Go's fuzzing coordinator can end a -fuzztime run with a bare "context deadline exceeded" and no
# failing input when a worker is still busy at the deadline (a race in internal/fuzz, seen under CPU
# load). That run found nothing: it is reported as a warning, and the target's corpus is replayed to
# be sure. A run that writes a failing input under testdata/fuzz fails.
set -u
target=$1 pkg=$2 fuzztime=$3
dir="$pkg/testdata/fuzz/$target"
before=$(ls "$dir" 2>/dev/null | sort)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"${GO:-go}" test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && exit 0
after=$(ls "$dir" 2>/dev/null | sort)
if [ "$before" = "$after" ] && grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written' "$out"; then
  echo "fuzz.sh: $target: the fuzzing coordinator's deadline race (no failing input written); replaying the corpus"
  exec "${GO:-go}" test -run="^${target}\$" "$pkg"
fi
exit "$status"
