#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The launch cost of limits: 'sbx run -- /bin/true' without limits, with rlimits and a timeout
# only (no cgroup), and with memory, pids and cpu (a cgroup made, joined and removed), side
# by side in one hyperfine run. See bench/README.md. Nothing is written outside a temporary
# directory (and the cgroups sbx makes and removes itself). Figures are printed, never asserted.

set -euo pipefail

PROG=${0##*/}
RUNS=50
usage() {
	cat <<EOF
Usage: $PROG [--runs N] [--quick]

Launch time of sbx with and without a cgroup for its limits (memory, pids, cpu), and with
the limits that need none (nofile, fsize, timeout). Run as root (or where 'sbx doctor' says
this user can have a cgroup); without one the cgroup rows are skipped. The sbx binary is
\$SBX, or ./build/sbx. Needs hyperfine and python3.
EOF
}
while [ $# -gt 0 ]; do
	case $1 in
	--runs)
		RUNS=$2
		shift 2
		;;
	--quick)
		RUNS=5
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 1
		;;
	esac
done
SBX=${SBX:-./build/sbx}
SBX=$(readlink -f -- "$SBX")
if ! command -v hyperfine >/dev/null; then
	echo "$PROG: hyperfine not found" >&2
	exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/ws"

cmds=("$SBX run -w $T/ws -- /bin/true"
	"$SBX run -w $T/ws --limit nofile=1024 --limit fsize=1G --limit timeout=1h -- /bin/true")
names=("namespaces, no limits" "namespaces, rlimits + timeout (no cgroup)")
if "$SBX" doctor | grep -q '^ok   limits           memory, pids, cpu'; then
	cmds+=("$SBX run -w $T/ws --limit memory=1G --limit pids=1024 --limit cpu=2 -- /bin/true"
		"$SBX run -w $T/ws --backend landlock -- /bin/true"
		"$SBX run -w $T/ws --backend landlock --limit memory=1G --limit pids=1024 --limit cpu=2 -- /bin/true")
	names+=("namespaces, memory+pids+cpu (cgroup)" "landlock, no limits (a bare cgroup)"
		"landlock, memory+pids+cpu (cgroup)")
else
	echo "# no cgroup for this user (sbx doctor): cgroup rows skipped"
fi
echo "# $(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"uid $(id -u), $RUNS runs"
(cd "$T/ws" && hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$T/l.json" "${cmds[@]}" >/dev/null)
python3 - "$T/l.json" "${names[@]}" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
names = sys.argv[2:]
base = statistics.median(r[0]["times"])
for name, x in zip(names, r):
    m = statistics.median(x["times"])
    print(f"{name:45s} {m * 1e3:8.2f} ms (median)  {m / base:5.2f} x")
PY
