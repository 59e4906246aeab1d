#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The supervisor on a real workload (issue 13): `git clone` of a local repository of 10 000
# files under claude-agent, with the supervisor on (a fresh workspace: its absent .git,
# .claude and .mcp.json are protected names, so every create is stopped and performed) and
# off (a profile extending claude-agent with protect_git: false, in a workspace where .claude
# and .mcp.json exist: nothing is protected, nothing supervised), beside the bare floor.
# Everything lives in a fresh temporary directory, removed on exit; figures are printed,
# never asserted. See bench/README.md.
set -euo pipefail

PROG=${0##*/}
FILES=10000
RUNS=5
BASE=${TMPDIR:-/tmp}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) FILES=1000 RUNS=2 ;;
	--files) FILES=$2; shift ;;
	--runs) RUNS=$2; shift ;;
	--dir) BASE=$2; shift ;;
	-h | --help)
		echo "Usage: $PROG [--quick] [--files N] [--runs N] [--dir DIR]  (sbx: \$SBX or ./build/sbx)"
		exit 0 ;;
	*) echo "$PROG: unknown option $1 (see --help)" >&2; exit 1 ;;
	esac
	shift
done
SBX=$(readlink -f -- "${SBX:-./build/sbx}")
[ -x "$SBX" ] || { echo "$PROG: no sbx at $SBX" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "$PROG: needs hyperfine" >&2; exit 1; }
PROFILES=$(readlink -f -- "$(dirname "$0")/../profiles")

T=$(mktemp -d "$BASE/sbx-bench-clone.XXXXXX")
trap 'rm -rf -- "$T"' EXIT
mkdir -p "$T/home/.claude" "$T/home/.config/claude-code" "$T/src" "$T/ws-on" "$T/ws-off/.claude" "$T/prof"
# claude-agent's configuration present: absent, the supervisor keeps it from being made in the
# private home, and sup-off would be supervised too
echo '{}' >"$T/home/.claude.json"
echo '{}' >"$T/ws-off/.mcp.json"
git init -q "$T/ws-off" # its .git/hooks and .git/config exist: claude-agent protects them if absent
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config

# the source: FILES small files in 100 folders, one commit
(
	cd "$T/src"
	for d in $(seq 0 99); do
		mkdir -p "d$d"
		for f in $(seq 0 $((FILES / 100 - 1))); do echo "$d $f" >"d$d/f$f.txt"; done
	done
	git init -q . && git add -A &&
		git -c user.name=b -c user.email=b@b commit -qm init
)

cat >"$T/prof/sup-off.yaml" <<EOF
version: 1
name: sup-off
extends: claude-agent
protect_git: false
EOF
export SBX_PROFILE_PATH=$T/prof:$PROFILES

run_in() { # WS PROFILE: a clone inside a sandbox of WS
	echo "cd $1 && $SBX run -p $2 --workspace $1 -v $T/src:ro -- git clone -q --no-hardlinks $T/src clone 2>/dev/null"
}
# the supervised one must supervise, the other must not
(cd "$T/ws-on" && "$SBX" run -p claude-agent --workspace "$T/ws-on" -- sh -c 'mkdir .git' 2>/dev/null) &&
	{ echo "$PROG: .git was made in a fresh workspace: nothing is supervised" >&2; exit 1; }
(cd "$T/ws-off" && "$SBX" run -p sup-off --workspace "$T/ws-off" -v "$T/src:ro" --dry-run -- true 2>/dev/null |
	grep -q '^supervisor: on') &&
	{ echo "$PROG: sup-off supervises something: the comparison would mean nothing" >&2; exit 1; }

hyperfine -N --runs "$RUNS" --warmup 1 --export-markdown "$T/clone.md" \
	--prepare "rm -rf $T/ws-on/clone $T/ws-off/clone $T/bare" \
	-n floor "git clone -q --no-hardlinks $T/src $T/bare" \
	-n supervisor-off "sh -c '$(run_in "$T/ws-off" sup-off)'" \
	-n supervisor-on "sh -c '$(run_in "$T/ws-on" claude-agent)'" >/dev/null
cat "$T/clone.md"
awk -F'|' '/supervisor-off/ {off=$3+0} /supervisor-on/ {on=$3+0} /floor/ {fl=$3+0}
	END { if (off > 0) printf "clone of %d files: supervisor on / off = %.2f (target <= 1.30); off / floor = %.2f; load %s\n", '"$FILES"', on / off, off / fl, "'"$(cut -d' ' -f1 /proc/loadavg)"'" }' "$T/clone.md"
