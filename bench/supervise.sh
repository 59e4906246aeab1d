#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The supervisor's cost (issue 13): a supervised create against an unsupervised one, per call,
# and a launch with the supervisor against one without. See bench/README.md.
#
# The same loop runs in two sandboxes of one fresh workspace that differ only in protect_git:
# with it, the workspace's absent .git is a protected name, so the worker gets the listener
# filter and every open with O_CREAT goes to sbx (resolved and performed by the performer);
# without it nothing is supervised. The loop is open(O_CREAT|O_EXCL) + close + unlink: one
# supervised call an iteration (unlink is not in the CREATE family). Everything is made in a
# fresh temporary directory and removed on exit. The figures are printed, never asserted.

set -euo pipefail

PROG=${0##*/}

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

Options:
  --quick          few iterations and launches, to check that the script works
  --iters N        loop iterations a run (default 20000)
  --rounds N       loop runs per sandbox, the median kept (default 5)
  --runs N         hyperfine runs per launch figure (default 50)
  --cpu LIST       pin sbx and the sandbox to these CPUs (taskset), e.g. 0 for one CPU
  --dir DIR        make the workspace under DIR (default \$TMPDIR or /tmp)
  -h, --help       show this help

The sbx binary is \$SBX, or ./build/sbx. Needs cc; hyperfine for the launch figures
and perf for the CPU-time figures (each skipped without it).
EOF
}

die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}

ITERS=20000
ROUNDS=5
RUNS=50
CPU=
BASE=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) ITERS=2000 ROUNDS=3 RUNS=10 ;;
	--iters) ITERS=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--runs) RUNS=$2; shift ;;
	--cpu) CPU=$2; shift ;;
	--dir) BASE=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done

SBX=${SBX:-./build/sbx}
[ -x "$SBX" ] || die "no sbx at $SBX (build it, or set SBX)"
SBX=$(readlink -f -- "$SBX")
command -v cc >/dev/null || die "needs cc"

T=$(mktemp -d "$BASE/sbx-bench-sup.XXXXXX")
trap 'rm -rf -- "$T"' EXIT
mkdir -p "$T/ws" "$T/bin"

cat >"$T/bin/loop.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		int fd = open("bench-file", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

		if (fd < 0) {
			perror("open");
			return 1;
		}
		close(fd);
		unlink("bench-file");
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
	return 0;
}
EOF
cc -O2 -o "$T/bin/loop" "$T/bin/loop.c"

for g in on off; do
	cat >"$T/sup-$g.yaml" <<EOF
version: 1
name: sup-$g
protect_git: $([ $g = on ] && echo true || echo false)
mounts:
  - path: \${WORKSPACE}
EOF
done

pin=()
[ -n "$CPU" ] && pin=(taskset -c "$CPU")
run() { # run PROFILE CMD...: sbx run in the workspace
	local p=$1
	shift
	(cd "$T/ws" && "${pin[@]}" "$SBX" run -p "$T/sup-$p.yaml" --workspace "$T/ws" -v "$T/bin:ro" -- "$@")
}

# the supervised profile must supervise, the other must not (or the figures mean nothing)
run on sh -c 'mkdir .git' 2>/dev/null && die "protect_git did not protect .git: nothing is supervised"
run off true || die "sbx run failed"
rm -rf "$T/ws/.git"

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
loop_us() { # loop_us PROFILE: the median of ROUNDS runs, in us a create
	for _ in $(seq "$ROUNDS"); do run "$1" "$T/bin/loop" "$ITERS"; done | median
}
bare_us() {
	for _ in $(seq "$ROUNDS"); do (cd "$T/ws" && "${pin[@]}" "$T/bin/loop" "$ITERS"); done | median
}

echo "# $(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"cpu ${CPU:-any}, workspace on $(stat -f -c %T "$T/ws")"
bare=$(bare_us)
off=$(loop_us off)
on=$(loop_us on)
awk -v b="$bare" -v off="$off" -v on="$on" 'BEGIN {
	printf "create+close+unlink, outside any sandbox:   %8.2f us\n", b
	printf "  in a sandbox, nothing supervised:         %8.2f us\n", off
	printf "  in a sandbox, the create supervised:      %8.2f us\n", on
	printf "  added a supervised call:                  %8.2f us (target <= 15)\n", on - off
	printf "  ratio supervised / unsupervised:          %8.2f\n", on / off
}'

# CPU time, which run-queue waits on a loaded machine do not inflate: perf stat's task-clock
# counts every process of the run (sbx, the worker, the performer), the difference between
# ITERS and ITERS/5 iterations divided by the calls between them is a call's cost
if command -v perf >/dev/null && perf stat -x, -e task-clock -o /dev/null true 2>/dev/null; then
	cpu_ms() { # cpu_ms PROFILE N
		local o=$T/stat
		(cd "$T/ws" && "${pin[@]}" perf stat -x, -e task-clock -o "$o" -- \
			"$SBX" run -p "$T/sup-$1.yaml" -w "$T/ws" -v "$T/bin:ro" -- "$T/bin/loop" "$2" >/dev/null)
		awk -F, '/task-clock/ {print $1}' "$o"
	}
	cpu_us() { # cpu_us PROFILE: the median of ROUNDS differences, in us a call
		local few=$((ITERS / 5))
		for _ in $(seq "$ROUNDS"); do
			echo "$(cpu_ms "$1" "$few") $(cpu_ms "$1" "$ITERS")"
		done | awk -v n=$((ITERS - few)) '{print ($2 - $1) * 1000 / n}' | median
	}
	con=$(cpu_us on)
	coff=$(cpu_us off)
	awk -v on="$con" -v off="$coff" 'BEGIN {
	printf "CPU time a call (every process of the run, perf stat task-clock):\n"
	printf "  in a sandbox, nothing supervised:         %8.2f us\n", off
	printf "  in a sandbox, the create supervised:      %8.2f us\n", on
	printf "  added a supervised call:                  %8.2f us\n", on - off
}'
else
	echo "CPU time: perf not found (or not permitted), skipped"
fi

if command -v hyperfine >/dev/null; then
	J=$T/launch.json
	(cd "$T/ws" && "${pin[@]}" hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$J" \
		"$SBX run -p $T/sup-off.yaml --workspace $T/ws -- /bin/true" \
		"$SBX run -p $T/sup-on.yaml --workspace $T/ws -- /bin/true" >/dev/null)
	python3 - "$J" <<'EOF'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
off, on = (statistics.median(x["times"]) * 1e3 for x in r)
print(f"launch, nothing supervised:                {off:8.2f} ms (median)")
print(f"launch, with the supervisor:               {on:8.2f} ms (median)")
print(f"  ratio:                                    {on / off:8.2f} (target <= 1.10)")
EOF
else
	echo "launch: hyperfine not found, skipped"
fi
