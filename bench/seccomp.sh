#!/bin/sh
# The per-syscall cost of sbx's default seccomp filter, against no filter and against
# bubblewrap running the very same BPF program (bwrap --seccomp FD), measured by three
# workers taking turns (see bench/seccomp_bench.c). Not a test: it prints medians and
# ratios. Targets (issue 5): under 3% on a call no rule names, under 10% on ioctl, compared
# with no filter.
#
# usage: bench/seccomp.sh [BUILD_DIR] [ROUNDS]   (defaults: build, 200)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-200}
exec_helper=$build/tests/sbx-seccomp-exec
[ -x "$exec_helper" ] || { echo "build first: cmake --build $build (needs $exec_helper)" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bubblewrap is not installed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -o "$work/bench" bench/seccomp_bench.c
"$exec_helper" --export "$work/filter.bpf"
echo "filter: $(($(stat -c %s "$work/filter.bpf") / 8)) BPF instructions; kernel $(uname -r);" \
	"$(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/bench" --drive "$rounds" "$(realpath "$exec_helper")" "$work/filter.bpf"
