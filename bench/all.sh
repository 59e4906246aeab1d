#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every benchmark in turn (launch and mounts and memory, seccomp, nested launch, glob walk,
# load), each one's full output kept in a log, then one summary of the lines that carry the
# figures. See bench/README.md for what each measures and its targets. Prints, never asserts.
#
#   bench/all.sh [--quick] [--as-user USER]
#
# --quick: few runs everywhere (checks the scripts; the figures are noisy). --as-user USER
# (as root): launch.sh and load.sh also measure as USER; nested.sh, as root, always runs as
# sbx-test (a sandbox started by root does not nest with the plain id map). $SBX or
# ./build/sbx; build/tests/sbx-seccomp-exec for seccomp.sh.
set -uo pipefail
cd "$(dirname "$0")/.."

QUICK=0
AS_USER=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--as-user) AS_USER=(--as-user "${2:?--as-user needs a user}"); shift ;;
	-h | --help) sed -n '3,13p' "$0"; exit 0 ;;
	*) echo "all.sh: unknown option '$1'" >&2; exit 1 ;;
	esac
	shift
done
export SBX=${SBX:-$PWD/build/sbx}
logs=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench-all.XXXXXX")
echo "logs in $logs (kept)"
echo "start: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(uname -r)"

status=()
# bench NAME CMD...: run one benchmark, its output in $logs/NAME.log
bench() {
	local name=$1 rc
	shift
	echo "== $name: $*"
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	status+=("$name: exit $rc, load after $(cut -d' ' -f1 /proc/loadavg)")
	[ "$rc" = 0 ] || { echo "   failed (exit $rc); see $logs/$name.log"; tail -n 5 "$logs/$name.log"; }
}

if [ "$QUICK" = 1 ]; then
	bench launch bash bench/launch.sh --quick --mounts "10 100" "${AS_USER[@]}"
	bench seccomp bench/seccomp.sh build 20
	bench nested bash bench/nested.sh 10
	bench supervise bash bench/supervise.sh --quick
	bench limits bash bench/limits.sh --quick
	bench clone bash bench/clone.sh --quick
	bench net bash bench/net.sh --quick
	bench load bash bench/load.sh --quick --concurrency "1 $(($(nproc) * 2)) 50" "${AS_USER[@]}"
	echo "== globwalk: skipped with --quick (it makes 100 000 files)"
else
	bench launch bash bench/launch.sh "${AS_USER[@]}"
	bench seccomp bench/seccomp.sh build 200
	bench nested bash bench/nested.sh 50
	bench supervise bash bench/supervise.sh
	bench limits bash bench/limits.sh
	bench clone bash bench/clone.sh
	bench net bash bench/net.sh
	bench globwalk sh bench/globwalk.sh "$SBX"
	bench load bash bench/load.sh "${AS_USER[@]}"
fi

echo
echo "==== summary ($(date -u '+%Y-%m-%d %H:%M:%S UTC'); figures are only worth quoting with the load near 0)"
printf '  %s\n' "${status[@]}"
for f in launch seccomp nested supervise limits clone net globwalk load; do
	[ -f "$logs/$f.log" ] || continue
	echo
	echo "-- $f"
	case $f in
	launch) awk '/^Results as/ { p = 1 } p && NF { print } /median of/ { p = 0 }' "$logs/$f.log" ;;
	seccomp) grep -E '^(filter:|call |getppid|ioctl|openat)' "$logs/$f.log" ;;
	nested) grep -E 'launch|ratio' "$logs/$f.log" ;;
	supervise) grep -E 'us|ms|ratio' "$logs/$f.log" ;;
	limits) grep -E ' x$|^#' "$logs/$f.log" ;;
	clone) grep -E '^clone of' "$logs/$f.log" ;;
	net) grep -E '^(throughput|connect|refused|sbx)' "$logs/$f.log" ;;
	globwalk) grep -E 'tree:|rule' "$logs/$f.log" ;;
	load) awk '/^Launches per second/ { p = 1 } p && NF { print } /load average after/ { p = 0 }' "$logs/$f.log" ;;
	esac
done
