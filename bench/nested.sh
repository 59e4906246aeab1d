#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Nested launch time: 'sbx run --restrict DIR -- /bin/true' started inside an outer sandbox,
# against the same outer sandbox running /bin/true directly. The difference of the two is
# the cost of one nested launch; the target is at most 1.2x a top-level launch.
#
# Usage: bench/nested.sh [RUNS]   (as root, it re-runs itself as user sbx-test, so that the
# figures compare with earlier ones; SBX_BENCH_AS_ROOT=1 measures root's own launches, whose
# sandboxes nest with the worker as uid 65533, see sbx(1)). $SBX or ./build/sbx. Prints the
# figures; a launch that fails stops it (a refusal is not a launch).
set -euo pipefail
RUNS=${1:-50}
SBX=${SBX:-$(pwd)/build/sbx}
if [ "$(id -u)" = 0 ] && [ "${SBX_BENCH_AS_ROOT:-0}" != 1 ]; then
	stage=$(mktemp -d /tmp/sbx-bench.XXXXXX)
	trap 'rm -rf "$stage"' EXIT
	chmod 755 "$stage"
	cp "$SBX" "$stage/sbx"
	cp "$0" "$stage/nested.sh"
	chmod 755 "$stage"/*
	setpriv --reuid=sbx-test --regid=sbx-test --init-groups env SBX="$stage/sbx" \
		PATH=/usr/bin:/bin HOME=/tmp "$stage/nested.sh" "$RUNS"
	exit
fi
dir=$(mktemp -d /tmp/sbx-bench-ws.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src"
bindir=$(dirname "$SBX")
# one outer sandbox, many launches inside it: what a sub-agent pays per sub-worker
# A launch that fails ends the loop with its status: a refusal is not a launch.
loop='s=$(date +%s%N); i=0; while [ $i -lt '"$RUNS"' ]; do "$@" || exit; i=$((i+1)); done;
      e=$(date +%s%N); echo $(( (e - s) / '"$RUNS"' / 1000 ))'
top=$(sh -c "$loop" sh "$SBX" run -v "$bindir:ro" -v "$dir" -- /bin/true) ||
	{ echo "nested.sh: a top-level launch failed" >&2; exit 1; }
# The outer sandbox must allow nesting (off by default since the seccomp filter landed).
nested=$("$SBX" run --allow-nesting -v "$bindir:ro" -v "$dir" -- /bin/sh -c "$loop" sh \
	"$SBX" run --restrict "$dir/src" -- /bin/true) ||
	{ echo "nested.sh: a nested launch failed (see above)" >&2; exit 1; }
echo "runs: $RUNS (each the mean of a loop; the machine is shared and noisy)"
echo "top-level launch (host -> sandbox):       ${top} us"
echo "nested launch (sandbox -> sub-sandbox):   ${nested} us"
awk -v a="$nested" -v b="$top" 'BEGIN { printf "ratio nested/top-level:                   %.2fx (target <= 1.20x)\n", a / b }'
