#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Write cmake/sbx.order: the functions a launch runs, most run first, which the build hands
# to lld (--symbol-ordering-file) so that they lie together at the front of sbx's text. The
# launcher's file-backed pages are most of its peak RSS, and the kernel maps a binary's
# pages around each fault (64 KiB); a launch that runs functions spread over all of 1.3 MiB of
# text maps nearly all of it (bench/README.md, memory). A list that has grown stale only
# costs locality, never correctness: rerun this after large changes to the launch path.
# Needs perf (Debian's linux-perf) and root; --as-user adds an ordinary user's launches.

set -euo pipefail

RUNS=150
AS_USER=
SRC=$(cd "$(dirname -- "$(readlink -f -- "$0")")/.." && pwd)
SBX=${SBX:-$SRC/build/sbx}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift ;;
	--as-user) AS_USER=$2; shift ;;
	-h | --help) echo "Usage: ${0##*/} [--runs N] [--as-user USER]   (SBX=path/to/sbx)"; exit 0 ;;
	*) echo "Usage: ${0##*/} [--runs N] [--as-user USER]" >&2; exit 2 ;;
	esac
	shift
done
command -v perf >/dev/null || { echo "${0##*/}: needs perf (linux-perf)" >&2; exit 1; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/sbx-order.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
chmod 755 "$TMP"
install -m 755 -- "$SBX" "$TMP/sbx"
mkdir -p "$TMP/project/.git/objects" "$TMP/project/src"
echo 'ref: refs/heads/main' >"$TMP/project/.git/HEAD"
chmod -R a+rwX "$TMP/project"
# launch.sh's plain launch (a profile file: no git protection) and the built-in default (the
# supervisor on, for the writable project), and a plan
printf 'version: 1\nname: plain\nprotect_git: false\nhome: tmpfs\n' >"$TMP/plain.yaml"
chmod 644 "$TMP/plain.yaml"
cat >"$TMP/loop.sh" <<EOF2
cd "$TMP/project"
for i in \$(seq $RUNS); do
	"$TMP/sbx" run -p "$TMP/plain.yaml" -v "$TMP/project" -v "$TMP/project/.git:ro" --chdir "$TMP/project" -- /bin/true
	"$TMP/sbx" run -v "$TMP/project" -v "$TMP/project/.git:ro" --chdir "$TMP/project" -- /bin/true
	"$TMP/sbx" run --dry-run -v "$TMP/project" -- /bin/true >/dev/null
done
EOF2
# user-space samples every 2 µs of CPU in every process named sbx (the launcher, init, the
# filter's builder, the worker before its exec)
perf record -q -o "$TMP/perf.data" -e cpu-clock:u -c 2000 -- bash "$TMP/loop.sh" >/dev/null
if [ -n "$AS_USER" ]; then
	perf record -q -o "$TMP/perf.user" -e cpu-clock:u -c 2000 -- \
		setpriv --reuid="$AS_USER" --regid="$(id -g "$AS_USER")" --init-groups \
		env -i PATH=/usr/bin:/bin HOME=/tmp bash "$TMP/loop.sh" >/dev/null
fi
{
	echo "# The functions a launch runs, most run first (bench/order.sh, $(date -u +%F))."
	for f in "$TMP"/perf.*; do
		perf report -i "$f" --comm sbx --dso sbx --sort sym -q -g none 2>/dev/null
	done | awk '$NF !~ /^0x/ { n[$NF] += $1 } END { for (s in n) print n[s], s }' |
		sort -rn -k1,1 | awk '{ print $2 }'
} >"$SRC/cmake/sbx.order"
echo "wrote $SRC/cmake/sbx.order ($(($(wc -l <"$SRC/cmake/sbx.order") - 1)) functions)"
