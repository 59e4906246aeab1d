#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Whole-process launch time of sbx against bubblewrap and the floor (unshare, bare exec),
# plus the cost of extra read-only mounts and the launchers' peak RSS. See bench/README.md.
#
# Everything is made in a fresh temporary directory and removed on exit; nothing is
# written elsewhere on the host. The figures are printed, never asserted.

set -euo pipefail

PROG=${0##*/}
SELF=$(readlink -f -- "$0")
# shellcheck source=bench/lib.sh
. "$(dirname -- "$SELF")/lib.sh"

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

Measure the launch time of 'sbx run ... -- /bin/true' for an agent-like sandbox against
the same sandbox built by bubblewrap, 'unshare -Urmpf --mount-proc /bin/true' and a bare
exec of /bin/true; then with extra read-only mounts; then the launchers' peak RSS.

Options:
  --quick            few runs, to check that the script works (figures are noisy)
  --runs N           timed runs per benchmark (default 100; 1000-mount rows: N/5, at least 10)
  --round N          runs of each command in a round (default 10): the commands compared
                     with each other take turns, a round each, till all their runs are done
  --warmup N         untimed runs before each benchmark (default 5)
  --mounts "A B C"   extra mount counts to measure (default "10 100 1000")
  --rss-runs N       launches per peak-RSS figure (default 20)
  --as-user USER     (as root) measure as root, then again as USER, with the binaries
                     staged in a world-readable temporary directory
  --export DIR       copy hyperfine's JSON exports into DIR (created if missing)
  -h, --help         show this help

The sbx binary is \$SBX, or ./build/sbx. Needs hyperfine, bwrap, unshare (util-linux),
and jq or python3. Peak RSS uses /usr/bin/time (Debian package 'time') or python3.
EOF
}

die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}

RUNS=100
WARMUP=5
ROUND=10
MOUNTS="10 100 1000"
RSS_RUNS=20
AS_USER=
EXPORT=
QUICK=0
INNER=0
RUNS_SET=0
WARMUP_SET=0
RSS_SET=0

while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--runs) RUNS=${2:?--runs needs a number}; RUNS_SET=1; shift ;;
	--round) ROUND=${2:?--round needs a number}; shift ;;
	--warmup) WARMUP=${2:?--warmup needs a number}; WARMUP_SET=1; shift ;;
	--mounts) MOUNTS=${2:?--mounts needs a list}; shift ;;
	--rss-runs) RSS_RUNS=${2:?--rss-runs needs a number}; RSS_SET=1; shift ;;
	--as-user) AS_USER=${2:?--as-user needs a user name}; shift ;;
	--export) EXPORT=${2:?--export needs a directory}; shift ;;
	--inner) INNER=1 ;; # internal: the re-run under --as-user (no header, no re-run)
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1'; see '$PROG --help'" ;;
	esac
	shift
done
if [ "$QUICK" = 1 ]; then
	[ "$RUNS_SET" = 1 ] || RUNS=5
	[ "$WARMUP_SET" = 1 ] || WARMUP=1
	[ "$RSS_SET" = 1 ] || RSS_RUNS=3
fi
for n in "$RUNS" "$WARMUP" "$RSS_RUNS" "$ROUND" $MOUNTS; do
	case $n in '' | *[!0-9]*) die "'$n' is not a number" ;; esac
done
[ "$RUNS" -ge 2 ] || die "--runs must be at least 2"
[ "$ROUND" -ge 1 ] || die "--round must be at least 1"
[ "$RSS_RUNS" -ge 1 ] || die "--rss-runs must be at least 1"
for n in $MOUNTS; do [ "$n" -ge 1 ] || die "--mounts counts must be at least 1"; done
[ -z "$EXPORT" ] || EXPORT=$(realpath -m -- "$EXPORT") # measure() changes directory
HEAVY_RUNS=$((RUNS / 5))
[ "$HEAVY_RUNS" -ge 10 ] || HEAVY_RUNS=10
[ "$HEAVY_RUNS" -le "$RUNS" ] || HEAVY_RUNS=$RUNS

if [ -n "$AS_USER" ]; then
	[ "$(id -u)" = 0 ] || die "--as-user needs root"
	id -u "$AS_USER" >/dev/null 2>&1 || die "no user '$AS_USER'"
	[ "$(id -u "$AS_USER")" != 0 ] || die "--as-user needs an ordinary user, not '$AS_USER'"
fi

SBX=${SBX:-./build/sbx}
[ -x "$SBX" ] || die "no sbx binary at '$SBX'; build it (cmake --build build) or set SBX"
SBX=$(readlink -f -- "$SBX")
for tool in hyperfine bwrap unshare; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done
BWRAP=$(command -v bwrap)
UNSHARE=$(command -v unshare)
TRUE=/bin/true
if command -v jq >/dev/null; then
	JSON=jq
elif command -v python3 >/dev/null; then
	JSON=python3
else
	die "needs jq or python3 to read hyperfine's JSON"
fi
if [ -x /usr/bin/time ]; then
	RSS_TOOL=/usr/bin/time
elif command -v python3 >/dev/null; then
	RSS_TOOL=python3
else
	RSS_TOOL=none
fi

# ---- temporary state, removed on every exit ----

TMP=
STAGE=
cleanup() {
	# Our sandboxes' mounts live in their own namespaces and die with them: plain
	# directories are all that is left to remove.
	[ -z "$TMP" ] || rm -rf -- "$TMP"
	[ -z "$STAGE" ] || rm -rf -- "$STAGE"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- helpers ----

# calc STATEMENT: run one awk statement (print or printf) on floating-point figures.
calc() {
	awk "BEGIN { $1; }"
}

# ms SECONDS
ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }

# ratio A B: A/B to two places, or n/a
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.2f", a / b }'; }

declare -A MED

# bench_set RUNS NAME CMD [NAME CMD]...: commands that are compared with each other (each CMD
# one string: hyperfine -N splits it on whitespace) timed in rounds, ROUND runs of each in
# turn, till each has RUNS: the host's speed drifts by tens of percent within minutes on a VM,
# and a command timed in one block and its rival in the next would carry that drift into
# their ratio. MED[NAME]: the median of all of a command's runs.
bench_set() {
	local runs=$1 k rounds per idx
	shift
	local -a names=() cmds=()
	while [ $# -ge 2 ]; do
		names+=("$1")
		cmds+=("$2")
		shift 2
	done
	per=$ROUND
	[ "$per" -le "$runs" ] || per=$runs
	rounds=$(((runs + per - 1) / per))
	printf '  %-28s %3s runs each, %s rounds of %s ... ' "${#names[@]} commands in turn" \
		"$((rounds * per))" "$rounds" "$per" >&2
	for ((k = 0; k < rounds; k++)); do
		if ! hyperfine -N --style none --warmup "$([ "$k" = 0 ] && echo "$WARMUP" || echo 1)" \
			--runs "$per" --export-json "$TMP/json/${names[0]}.round$k.json" -- "${cmds[@]}" \
			>"$TMP/hyperfine.log" 2>&1; then
			echo "failed" >&2
			cat "$TMP/hyperfine.log" >&2
			die "hyperfine failed for ${names[*]}"
		fi
	done
	for idx in "${!names[@]}"; do
		MED[${names[$idx]}]=$(median_of "$idx" "$TMP/json/${names[0]}".round*.json)
	done
	echo "done" >&2
	for idx in "${!names[@]}"; do
		printf '    %-26s %s ms\n' "${names[$idx]}" "$(ms "${MED[${names[$idx]}]}")" >&2
	done
}

# median_of IDX FILE...: the median of the IDX-th command's runs over hyperfine's exports.
median_of() {
	local idx=$1
	shift
	if [ "$JSON" = jq ]; then
		jq -s --argjson i "$idx" '[.[].results[$i].times[]] | sort | length as $n |
		    if $n % 2 == 1 then .[($n - 1) / 2] else (.[$n / 2 - 1] + .[$n / 2]) / 2 end' "$@"
	else
		python3 -c 'import json,statistics,sys
i = int(sys.argv[1])
print(statistics.median(t for f in sys.argv[2:] for t in json.load(open(f))["results"][i]["times"]))' "$idx" "$@"
	fi
}

# peak_rss CMD...: the median over RSS_RUNS launches of the peak RSS (KiB) that wait4
# reports for the launcher, which covers it and every descendant it reaped.
peak_rss() {
	local i vals=()
	for ((i = 0; i < RSS_RUNS; i++)); do
		case $RSS_TOOL in
		/usr/bin/time)
			/usr/bin/time -f %M -o "$TMP/rss" -- "$@" >/dev/null 2>&1 || return 1
			vals+=("$(tail -n 1 "$TMP/rss")")
			;;
		python3)
			vals+=("$(python3 -c 'import resource,subprocess,sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@")") || return 1
			;;
		*) return 1 ;;
		esac
	done
	printf '%s\n' "${vals[@]}" | sort -n | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ---- the measurements, as the current user ----

measure() {
	local who max n i proj mnt sys_args=() sbx_cmd bwrap_cmd sbx_extra bwrap_extra
	who="$(id -un) (uid $(id -u))"
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench.XXXXXX")
	case $TMP in *[[:space:]]*) die "the temporary directory '$TMP' has whitespace" ;; esac
	mkdir "$TMP/json"

	# An agent-like project: a writable tree with a .git inside it that must stay
	# read-only. The extra mounts are plain directories, mounted read-only at their own
	# paths, whose parent no mount covers (so both launchers make the mount points in
	# their own tmpfs, never on the host).
	proj=$TMP/project
	mnt=$TMP/extra
	mkdir -p "$proj/.git/objects" "$proj/src" "$mnt"
	echo 'int main(void) { return 0; }' >"$proj/src/main.c"
	echo 'ref: refs/heads/main' >"$proj/.git/HEAD"
	max=0
	for n in $MOUNTS; do [ "$n" -le "$max" ] || max=$n; done
	for ((i = 1; i <= max; i++)); do mkdir "$mnt/$i"; done
	cd "$proj"

	# bubblewrap's system mounts are derived from sbx's own plan, so that both build the
	# same tree: read-only binds of the same dirs and /etc files, the same symlinks.
	local plan=$TMP/plan.json
	bench_system_args "$SBX" "$proj" "$plan" sys_args || die "cannot derive bubblewrap's system mounts"

	# The plain launch protects no git (bubblewrap protects none): with protect_git, a writable
	# mount of a host directory starts the supervisor (no new .git may be made there), which
	# the feature row below measures. Otherwise the built-in default, to the letter (the same
	# plan but the supervisor: --dry-run says so).
	printf 'version: 1\nname: plain\nprotect_git: false\nhome: tmpfs\n' >"$TMP/plain.yaml"
	sbx_cmd=("$SBX" run -p "$TMP/plain.yaml" -v "$proj" -v "$proj/.git:ro" --chdir "$proj")
	bwrap_cmd=("$BWRAP" --unshare-all --die-with-parent --new-session "${sys_args[@]}"
		--proc /proc --dev /dev --tmpfs /tmp
		--bind "$proj" "$proj" --ro-bind "$proj/.git" "$proj/.git" --chdir "$proj")

	# Check once that both sandboxes run and look alike before timing them.
	# (The extra mounts' directory is a host path no mount covers yet: it must be absent.)
	local probe="test -d /proc/1 && test -c /dev/null && test -w /tmp && test ! -e $mnt &&
		: >src/.probe && rm src/.probe && ! (: >.git/probe) 2>/dev/null"
	"${sbx_cmd[@]}" -- /bin/sh -c "$probe" ||
		die "the sbx sandbox does not pass the sanity probe: ${sbx_cmd[*]}"
	"${bwrap_cmd[@]}" -- /bin/sh -c "$probe" ||
		die "the bubblewrap sandbox does not pass the sanity probe: ${bwrap_cmd[*]}"

	echo >&2
	echo "Measuring as $who in $TMP (warmup $WARMUP, runs $RUNS; heavy rows $HEAVY_RUNS):" >&2
	# The raw floor (floor.c): the same seven namespaces cloned, the maps written, /bin/true
	# exec'd; static, as sbx is.
	local floor_dir
	floor_dir=$(dirname -- "$SELF")
	cc -O2 -static -o "$TMP/floor" "$floor_dir/floor.c" 2>/dev/null ||
		cc -O2 -o "$TMP/floor" "$floor_dir/floor.c" || die "cannot build floor.c"
	"$TMP/floor" || die "the raw floor does not run here (unprivileged user namespaces?)"
	# What each feature of sbx costs a launch that uses it, and that the plain launch does
	# not pay for it: no network namespace at all; the proxy of an allowlist; the
	# supervisor (the built-in default on a git repository: protect_git, whose absent names
	# and any new .git in a writable mount it refuses; the plain row says protect_git: false);
	# a cgroup (a memory limit: root only on this kind of host, where a user gets none).
	local repo=$TMP/repo
	mkdir -p "$repo"
	git -C "$repo" init -q 2>/dev/null || die "git init failed (git is needed for the supervisor row)"
	"${sbx_cmd[@]}" --net host -- /bin/true || die "sbx --net host does not run"
	"${sbx_cmd[@]}" --net allow:example.test -- /bin/true || die "sbx --net allow does not run"
	local dry
	dry=$("$SBX" run -v "$repo" --chdir "$repo" --dry-run -- /bin/true)
	case $dry in *"supervisor: on"*) ;; *)
		die "a git repository in the workspace did not turn the supervisor on" ;;
	esac
	local -a rows=(
		floor "$TMP/floor"
		bare "$TRUE"
		unshare "$UNSHARE -Urmpf --mount-proc $TRUE"
		sbx "${sbx_cmd[*]} -- $TRUE"
		bwrap "${bwrap_cmd[*]} -- $TRUE"
		"feat:net-host" "${sbx_cmd[*]} --net host -- $TRUE"
		"feat:net-allow" "${sbx_cmd[*]} --net allow:example.test -- $TRUE"
		"feat:supervisor" "$SBX run -v $repo --chdir $repo -- $TRUE")
	MED[feat:cgroup]=
	if "${sbx_cmd[@]}" --limit memory=1G -- /bin/true 2>/dev/null; then
		rows+=("feat:cgroup" "${sbx_cmd[*]} --limit memory=1G -- $TRUE")
	fi
	# The raw floor (floor.c), bubblewrap, sbx and each feature row take turns (bench_set).
	bench_set "$RUNS" "${rows[@]}"
	for n in $MOUNTS; do
		local runs=$RUNS
		[ "$n" -lt 1000 ] || runs=$HEAVY_RUNS
		sbx_extra=()
		bwrap_extra=()
		for ((i = 1; i <= n; i++)); do
			sbx_extra+=(-v "$mnt/$i:ro")
			bwrap_extra+=(--ro-bind "$mnt/$i" "$mnt/$i")
		done
		"${sbx_cmd[@]}" "${sbx_extra[@]}" -- /bin/sh -c "test -d $mnt/$n && ! (: >$mnt/$n/x) 2>/dev/null" ||
			die "sbx with $n extra mounts does not pass the sanity probe"
		"${bwrap_cmd[@]}" "${bwrap_extra[@]}" -- /bin/sh -c "test -d $mnt/$n && ! (: >$mnt/$n/x) 2>/dev/null" ||
			die "bubblewrap with $n extra mounts does not pass the sanity probe"
		bench_set "$runs" "sbx+$n" "${sbx_cmd[*]} ${sbx_extra[*]} -- $TRUE" \
			"bwrap+$n" "${bwrap_cmd[*]} ${bwrap_extra[*]} -- $TRUE"
	done

	local rss_sbx=n/a rss_bwrap=n/a own_sbx=n/a own_bwrap=n/a
	if [ "$RSS_TOOL" != none ]; then
		printf '  %-28s %3s runs ... ' "peak RSS" "$RSS_RUNS" >&2
		rss_sbx=$(peak_rss "${sbx_cmd[@]}" -- "$TRUE") || rss_sbx=n/a
		rss_bwrap=$(peak_rss "${bwrap_cmd[@]}" -- "$TRUE") || rss_bwrap=n/a
		echo "done" >&2
	fi
	if command -v python3 >/dev/null; then
		printf '  %-28s %3s runs ... ' "launcher's own RSS" "$RSS_RUNS" >&2
		own_sbx=$(python3 "$floor_dir/rss.py" "$RSS_RUNS" "${sbx_cmd[@]}" --) || own_sbx=n/a
		own_bwrap=$(python3 "$floor_dir/rss.py" "$RSS_RUNS" "${bwrap_cmd[@]}" --) || own_bwrap=n/a
		echo "done" >&2
	fi

	# ---- the report ----
	local s b note
	echo
	echo "Results as $who (medians; ratio = sbx / bubblewrap):"
	echo
	printf '  %-36s %10s %10s %9s\n' "launch of /bin/true" "sbx ms" "bwrap ms" "ratio"
	printf '  %-36s %10s %10s %9s   %s\n' "agent-like sandbox" "$(ms "${MED[sbx]}")" \
		"$(ms "${MED[bwrap]}")" "$(ratio "${MED[sbx]}" "${MED[bwrap]}")" "(target <= 0.60)"
	for n in $MOUNTS; do
		printf '  %-36s %10s %10s %9s\n' "  + $n read-only mounts" "$(ms "${MED[sbx+$n]}")" \
			"$(ms "${MED[bwrap+$n]}")" "$(ratio "${MED[sbx+$n]}" "${MED[bwrap+$n]}")"
	done
	echo
	printf '  %-36s %10s %10s %9s\n' "extra cost of the mounts" "sbx ms" "bwrap ms" "ratio"
	for n in $MOUNTS; do
		note=
		[ "$n" != 1000 ] || note="(target <= 0.10)"
		s=$(calc "print ${MED[sbx+$n]} - ${MED[sbx]}")
		b=$(calc "print ${MED[bwrap+$n]} - ${MED[bwrap]}")
		printf '  %-36s %10s %10s %9s   %s\n' "  $n mounts" "$(ms "$s")" "$(ms "$b")" \
			"$(ratio "$s" "$b")" "$note"
	done
	echo
	printf '  %-36s %10s %10s\n' "marginal cost per mount" "sbx us" "bwrap us"
	for n in $MOUNTS; do
		[ "$n" -gt 0 ] || continue
		printf '  %-36s %10s %10s\n' "  averaged over $n mounts" \
			"$(calc "printf \"%.1f\", (${MED[sbx+$n]} - ${MED[sbx]}) * 1e6 / $n")" \
			"$(calc "printf \"%.1f\", (${MED[bwrap+$n]} - ${MED[bwrap]}) * 1e6 / $n")"
	done
	echo
	printf '  %-36s %10s %10s %9s\n' "floor" "ms" "" "sbx/floor"
	printf '  %-36s %10s %10s %9s   %s\n' "raw clone of 7 namespaces, maps, exec" \
		"$(ms "${MED[floor]}")" "" "$(ratio "${MED[sbx]}" "${MED[floor]}")" "(target <= 1.60)"
	printf '  %-36s %10s\n' "unshare -Urmpf --mount-proc" "$(ms "${MED[unshare]}")"
	printf '  %-36s %10s\n' "bare exec of /bin/true" "$(ms "${MED[bare]}")"
	echo
	printf '  %-36s %10s %10s\n' "per feature (what uses it pays)" "sbx ms" "/ plain"
	printf '  %-36s %10s %10s\n' "  plain: --net none (its resolver)" "$(ms "${MED[sbx]}")" "1.00"
	printf '  %-36s %10s %10s\n' "  --net host (no network namespace)" "$(ms "${MED[feat:net-host]}")" \
		"$(ratio "${MED[feat:net-host]}" "${MED[sbx]}")"
	printf '  %-36s %10s %10s\n' "  --net allow:NAME (sbx's proxy)" "$(ms "${MED[feat:net-allow]}")" \
		"$(ratio "${MED[feat:net-allow]}" "${MED[sbx]}")"
	printf '  %-36s %10s %10s\n' "  a git repository: supervisor" "$(ms "${MED[feat:supervisor]}")" \
		"$(ratio "${MED[feat:supervisor]}" "${MED[sbx]}")"
	if [ -n "${MED[feat:cgroup]}" ]; then
		printf '  %-36s %10s %10s\n' "  --limit memory=1G (a cgroup)" "$(ms "${MED[feat:cgroup]}")" \
			"$(ratio "${MED[feat:cgroup]}" "${MED[sbx]}")"
	else
		printf '  %-36s %10s\n' "  --limit memory=1G (a cgroup)" "refused here"
	fi
	echo
	printf '  %-36s %10s %10s %9s\n' "peak RSS, agent-like launch" "sbx KiB" "bwrap KiB" "ratio"
	printf '  %-36s %10s %10s %9s\n' "  the launcher itself (VmHWM)" "$own_sbx" "$own_bwrap" \
		"$(if [ "$own_sbx" = n/a ] || [ "$own_bwrap" = n/a ]; then echo n/a; else ratio "$own_sbx" "$own_bwrap"; fi)"
	printf '  %-36s %10s %10s %9s\n' "  its tree, worker incl. (wait4)" "$rss_sbx" "$rss_bwrap" \
		"$(if [ "$rss_sbx" = n/a ] || [ "$rss_bwrap" = n/a ]; then echo n/a; else ratio "$rss_sbx" "$rss_bwrap"; fi)"
	if [ "$QUICK" = 1 ]; then
		echo
		echo "  --quick: $RUNS runs a row; these figures are noisy, not for publication."
	fi

	if [ -n "$EXPORT" ]; then
		mkdir -p -- "$EXPORT/$(id -un)"
		cp -- "$TMP"/json/*.json "$EXPORT/$(id -un)/"
		cp -- "$plan" "$EXPORT/$(id -un)/sbx-plan.json"
	fi
	cd /
	rm -rf -- "$TMP"
	TMP=
}

# ---- main ----

if [ "$INNER" = 0 ]; then
	echo "sbx launch benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "machine:  $(nproc) CPUs, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "kernel:   $(uname -srm)"
	echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; figures are only worth quoting near 0)"
	echo "sbx:      $("$SBX" --version) ($SBX)"
	echo "bwrap:    $("$BWRAP" --version)"
	echo "tools:    $(hyperfine --version), $("$UNSHARE" --version | head -n 1), medians by $JSON"
fi

measure

if [ -n "$AS_USER" ]; then
	# Stage the binary and this script where the user can read them; the user makes and
	# removes its own temporary tree.
	STAGE=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench-stage.XXXXXX")
	chmod 755 "$STAGE"
	install -m 755 -- "$SBX" "$STAGE/sbx"
	install -m 755 -- "$SELF" "$STAGE/launch.sh"
	install -m 644 -- "$(dirname -- "$SELF")/lib.sh" "$STAGE/lib.sh"
	install -m 644 -- "$(dirname -- "$SELF")/floor.c" "$STAGE/floor.c"
	install -m 755 -- "$(dirname -- "$SELF")/rss.py" "$STAGE/rss.py"
	inner_args=(--inner --runs "$RUNS" --warmup "$WARMUP" --mounts "$MOUNTS" --rss-runs "$RSS_RUNS")
	[ "$QUICK" = 0 ] || inner_args+=(--quick)
	if [ -n "$EXPORT" ]; then
		install -d -m 700 -o "$AS_USER" -- "$STAGE/export"
		inner_args+=(--export "$STAGE/export")
	fi
	user_home=$(getent passwd "$AS_USER" | cut -d: -f6)
	user_env=(env -i "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$user_home" "USER=$AS_USER"
		"LANG=${LANG:-C.UTF-8}" "TMPDIR=/tmp" "SBX=$STAGE/sbx")
	if command -v setpriv >/dev/null; then
		(cd / && setpriv --reuid="$AS_USER" --regid="$(id -g "$AS_USER")" --init-groups \
			"${user_env[@]}" /bin/bash "$STAGE/launch.sh" "${inner_args[@]}")
	else
		(cd / && runuser -u "$AS_USER" -- "${user_env[@]}" /bin/bash "$STAGE/launch.sh" "${inner_args[@]}")
	fi
	if [ -n "$EXPORT" ]; then
		mkdir -p -- "$EXPORT"
		cp -R -- "$STAGE/export/$AS_USER" "$EXPORT"/
	fi
fi
