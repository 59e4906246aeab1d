#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Launches per second under load: C concurrent loops, each launching '/bin/true' in an
# agent-like sandbox again and again for T seconds, for sbx, for bubblewrap building the same
# sandbox, and for a bare exec (the floor), side by side in one run. Reported as completions
# per second and as the sbx/bubblewrap ratio. See bench/README.md. A benchmark, never a test:
# it prints figures and asserts nothing but that the sandboxes work.
#
# Everything is made in a fresh temporary directory and removed on exit.

set -euo pipefail

PROG=${0##*/}
SELF=$(readlink -f -- "$0")
HERE=$(dirname -- "$SELF")

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

For each concurrency C, run C loops at once for T seconds, each launching /bin/true
again and again, with sbx, with bubblewrap (the same sandbox) and bare; count the
launches that completed, and print launches per second and the sbx/bubblewrap ratio.

Options:
  --duration T       seconds per launcher and concurrency (default 10)
  --concurrency "A B" the values of C (default "1 2xCPUs 50 200")
  --quick            2 seconds each: checks the script, noisy figures
  --as-user USER     (as root) measure as root, then again as USER
  -h, --help         show this help

The sbx binary is \$SBX, or ./build/sbx. Needs bash 5, bwrap, and jq or python3.
EOF
}

die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}

DURATION=10
CONC="1 $(($(nproc) * 2)) 50 200"
AS_USER=
INNER=0
while [ $# -gt 0 ]; do
	case $1 in
	--duration) DURATION=${2:?--duration needs seconds}; shift ;;
	--concurrency) CONC=${2:?--concurrency needs a list}; shift ;;
	--quick) DURATION=2 ;;
	--as-user) AS_USER=${2:?--as-user needs a user name}; shift ;;
	--inner) INNER=1 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1'; see '$PROG --help'" ;;
	esac
	shift
done
for n in "$DURATION" $CONC; do
	case $n in '' | *[!0-9]* | 0) die "'$n' is not a positive number" ;; esac
done
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (EPOCHREALTIME)"
if [ -n "$AS_USER" ]; then
	[ "$(id -u)" = 0 ] || die "--as-user needs root"
	[ "$(id -u "$AS_USER" 2>/dev/null || echo 0)" != 0 ] || die "--as-user needs an ordinary user"
fi
SBX=${SBX:-./build/sbx}
[ -x "$SBX" ] || die "no sbx binary at '$SBX'; build it or set SBX"
SBX=$(readlink -f -- "$SBX")
command -v bwrap >/dev/null || die "bubblewrap is not installed"
BWRAP=$(command -v bwrap)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"

TMP=
STAGE=
trap '[ -z "$TMP" ] || rm -rf -- "$TMP"; [ -z "$STAGE" ] || rm -rf -- "$STAGE"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# loop END OUT CMD...: launch CMD until END (EPOCHREALTIME); write "done failed" to OUT.
loop() {
	local end=$1 out=$2 ok=0 bad=0
	shift 2
	while [[ ${EPOCHREALTIME/./} -lt $end ]]; do
		if "$@" >/dev/null 2>&1; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
	done
	echo "$ok $bad" >"$out"
}

# run NAME C CMD...: C loops at once for DURATION s; sets RATE[NAME/C] and FAIL[NAME/C].
declare -A RATE FAIL
run() {
	local name=$1 c=$2 i start end ok=0 bad=0 a b elapsed
	shift 2
	rm -f "$TMP"/count.*
	start=${EPOCHREALTIME/./}
	end=$((start + DURATION * 1000000))
	for ((i = 0; i < c; i++)); do
		loop "$end" "$TMP/count.$i" "$@" &
	done
	wait
	elapsed=$((${EPOCHREALTIME/./} - start))
	for ((i = 0; i < c; i++)); do
		read -r a b <"$TMP/count.$i"
		ok=$((ok + a))
		bad=$((bad + b))
	done
	RATE[$name/$c]=$(awk -v n="$ok" -v us="$elapsed" 'BEGIN { printf "%.1f", n * 1e6 / us }')
	FAIL[$name/$c]=$bad
	printf '  C=%-4s %-6s %8s launches/s  (%d done, %d failed)\n' "$c" "$name" \
		"${RATE[$name/$c]}" "$ok" "$bad" >&2
}

measure() {
	local proj sys_args=() sbx_cmd bwrap_cmd c
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/sbx-load.XXXXXX")
	proj=$TMP/project
	mkdir -p "$proj/.git" "$proj/src"
	cd "$proj"
	bench_system_args "$SBX" "$proj" "$TMP/plan.json" sys_args
	# launch.sh's plain launch: no git protection (bubblewrap has none), so no supervisor
	printf 'version: 1\nname: plain\nprotect_git: false\nhome: tmpfs\n' >"$TMP/plain.yaml"
	sbx_cmd=("$SBX" run -p "$TMP/plain.yaml" -v "$proj" -v "$proj/.git:ro" --chdir "$proj" -- /bin/true)
	bwrap_cmd=("$BWRAP" --unshare-all --die-with-parent --new-session "${sys_args[@]}"
		--proc /proc --dev /dev --tmpfs /tmp
		--bind "$proj" "$proj" --ro-bind "$proj/.git" "$proj/.git" --chdir "$proj" -- /bin/true)
	"${sbx_cmd[@]}" || die "sbx cannot launch: ${sbx_cmd[*]}"
	"${bwrap_cmd[@]}" || die "bubblewrap cannot launch: ${bwrap_cmd[*]}"

	echo >&2
	echo "Measuring as $(id -un) (uid $(id -u)), $DURATION s per row:" >&2
	for c in $CONC; do
		run sbx "$c" "${sbx_cmd[@]}"
		run bwrap "$c" "${bwrap_cmd[@]}"
		run bare "$c" /bin/true
	done

	echo
	echo "Launches per second as $(id -un), $DURATION s each (ratio = sbx / bubblewrap; above 1: sbx launches more):"
	echo
	printf '  %-6s %10s %10s %8s %10s %10s\n' "C" "sbx/s" "bwrap/s" "ratio" "bare/s" "failed"
	for c in $CONC; do
		printf '  %-6s %10s %10s %8s %10s %10s\n' "$c" "${RATE[sbx/$c]}" "${RATE[bwrap/$c]}" \
			"$(awk -v a="${RATE[sbx/$c]}" -v b="${RATE[bwrap/$c]}" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.2f", a / b }')" \
			"${RATE[bare/$c]}" "$((FAIL[sbx/$c] + FAIL[bwrap/$c] + FAIL[bare/$c]))"
	done
	echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	cd /
	rm -rf -- "$TMP"
	TMP=
}

if [ "$INNER" = 0 ]; then
	echo "sbx load benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "machine:  $(nproc) CPUs, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "kernel:   $(uname -srm)"
	echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; figures are only worth quoting near 0)"
	echo "sbx:      $("$SBX" --version) ($SBX); bwrap: $("$BWRAP" --version)"
fi
measure
if [ -n "$AS_USER" ]; then
	STAGE=$(mktemp -d "${TMPDIR:-/tmp}/sbx-load-stage.XXXXXX")
	chmod 755 "$STAGE"
	install -m 755 -- "$SBX" "$STAGE/sbx"
	install -m 755 -- "$SELF" "$STAGE/load.sh"
	install -m 644 -- "$HERE/lib.sh" "$STAGE/lib.sh"
	(cd / && setpriv --reuid="$AS_USER" --regid="$(id -g "$AS_USER")" --init-groups \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$AS_USER" | cut -d: -f6)" \
		USER="$AS_USER" TMPDIR=/tmp SBX="$STAGE/sbx" \
		/bin/bash "$STAGE/load.sh" --inner --duration "$DURATION" --concurrency "$CONC")
fi
