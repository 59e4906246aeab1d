#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Where a launch's time goes (bench/README.md, "Where the time goes"): build sbx with
# -DSBX_LAUNCH_TRACE=ON (its phase marks, include/sbx/trace.h) beside the tree, launch the
# agent-like sandbox of launch.sh N times, and print each phase's median, as root and, with
# --as-user USER, as USER. Figures only; nothing is asserted. The trace build is never
# installed and never used for anything else.

set -euo pipefail

usage() {
	cat <<EOF2
Usage: ${0##*/} [--runs N] [--as-user USER] [--build DIR]

  --runs N         launches per table (default 100)
  --as-user USER   (as root) measure as root, then as USER
  --build DIR      the trace build's directory (default: build-trace in the source tree)
EOF2
}

RUNS=100
AS_USER=
SRC=$(cd "$(dirname -- "$(readlink -f -- "$0")")/.." && pwd)
BUILD=$SRC/build-trace
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift ;;
	--as-user) AS_USER=$2; shift ;;
	--build) BUILD=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

cmake -S "$SRC" -B "$BUILD" -DSBX_LAUNCH_TRACE=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target sbx >/dev/null

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/sbx-phases.XXXXXX")
trap 'rm -rf -- "$STAGE"' EXIT
chmod 755 "$STAGE"
install -m 755 -- "$BUILD/sbx" "$STAGE/sbx"
install -m 644 -- "$SRC/bench/phases.py" "$STAGE/phases.py"
# launch.sh's agent-like project: writable, with a .git that must stay read-only
cat >"$STAGE/run.sh" <<'EOF2'
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbx-phases-run.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
mkdir -p "$tmp/project/.git/objects" "$tmp/project/src"
echo 'ref: refs/heads/main' >"$tmp/project/.git/HEAD"
cd "$tmp/project"
# launch.sh's plain launch: no git protection, so no supervisor
printf 'version: 1\nname: plain\nprotect_git: false\nhome: tmpfs\n' >"$tmp/plain.yaml"
echo "as $(id -un), load $(cut -d' ' -f1-3 /proc/loadavg):"
python3 "$1/phases.py" "$2" "$1/sbx" run -p "$tmp/plain.yaml" -v "$tmp/project" \
	-v "$tmp/project/.git:ro" --chdir "$tmp/project" -- /bin/true
EOF2
echo "sbx launch phases, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -r), $(nproc) CPUs"
bash "$STAGE/run.sh" "$STAGE" "$RUNS"
if [ -n "$AS_USER" ]; then
	echo
	(cd / && setpriv --reuid="$AS_USER" --regid="$(id -g "$AS_USER")" --init-groups \
		env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$AS_USER" | cut -d: -f6)" \
		TMPDIR=/tmp bash "$STAGE/run.sh" "$STAGE" "$RUNS")
fi
