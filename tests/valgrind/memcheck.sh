#!/bin/sh
# SPDX-License-Identifier: MIT
#
# valgrind memcheck over sbx with a shipped profile (issue 7): no leak (definite or
# indirect), no invalid access, no use of uninitialised memory, in every process valgrind
# runs. Uses sbx-dynamic, the same program linked against the shared libc: valgrind cannot
# replace malloc in the static-pie sbx.
#
#   memcheck.sh SBX_DYNAMIC SHIM root|user
#
# What valgrind 3.19 (Debian 12) can and cannot see, found by running it (see also
# bench/README.md and the note of issue 7):
#   - `sbx check`, `sbx resolve`, `sbx profiles show|validate` and `sbx run --dry-run`
#     (text and JSON) run whole under memcheck: profile loading, policies, the plan, the
#     effective spec, the seccomp filter's compilation, every report.
#   - `sbx run` (a real launch) cannot get far: valgrind 3.19 does not implement seccomp(2)
#     (317), openat2 (437), open_tree/move_mount/fsopen/fsconfig/fsmount (428-432),
#     mount_setattr (442), pidfd_open (434) or landlock_* (444-446); it answers ENOSYS
#     without asking the kernel. sbx fails closed on each, so under plain valgrind a launch
#     stops with exit 125 at root's first open_tree, or a user's filter compilation
#     (libseccomp sees no seccomp(2); sbx compiles it after clone). That refusal path is
#     checked: the profile, the plan, the sealed spec memfd, the error.
#   - With SHIM preloaded (seccomp_shim.c: the filter installed by prctl instead of
#     seccomp(2)), the launch goes further. As a user: sbx clones the sandbox's init into
#     new namespaces, writes its id maps, and supervises it; the init runs under memcheck
#     (valgrind follows a clone without CLONE_VM as a fork) until its first new-mount-API
#     call, which valgrind answers ENOSYS; the init reports the error over the pipe, sbx
#     decodes it and exits 125. As root, sbx prepares id-mapped sources before the clone, so
#     the same ENOSYS stops the parent before any namespace exists.
#   - The worker and the mounts are therefore never reached under valgrind. The worker is
#     a vfork child that only makes system calls before exec, and --trace-children=no
#     would leave the program it execs alone anyway. The ASan+UBSan pass (build-asan/)
#     covers every launch of the integration suite end to end instead.
set -eu

sbx=$1
shim=$2
who=$3

fail() {
	echo "memcheck: FAIL: $*" >&2
	exit 1
}

if [ "$who" = root ] && [ "$(id -u)" != 0 ]; then
	echo "skipped: the root variant needs root (run the suite with sudo, as CI does)"
	exit 77
fi
command -v valgrind >/dev/null ||
	fail "valgrind is not installed; scripts/setup.sh installs it (apt-get install valgrind)"

if [ "$who" = user ] && [ "$(id -u)" = 0 ]; then
	# Stage what runs where the user can read it, as tests/integration/as-user.sh does.
	# Temporary names start with sbx-it, which it_faults's leftover count leaves out: the
	# two run side by side.
	user=sbx-test
	id -u "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/sh "$user"
	stage=$(mktemp -d /tmp/sbx-it-vg-bin.XXXXXX)
	trap 'rm -rf "$stage"' EXIT
	chmod 755 "$stage"
	cp "$sbx" "$stage/sbx"
	cp "$shim" "$stage/shim.so"
	cp "$0" "$stage/memcheck.sh"
	cp "$(dirname "$0")/sbx.supp" "$stage/sbx.supp"
	chmod 755 "$stage"/*
	set +e
	(cd / && setpriv --reuid="$user" --regid="$user" --init-groups --reset-env \
		env PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$user" | cut -d: -f6)" \
		TMPDIR=/tmp SBX_SOURCE_DIR="${SBX_SOURCE_DIR:?}" \
		/bin/sh "$stage/memcheck.sh" "$stage/sbx" "$stage/shim.so" user)
	exit $?
fi

: "${SBX_SOURCE_DIR:?SBX_SOURCE_DIR must name the source tree}"
export SBX_PROFILE_PATH="$SBX_SOURCE_DIR/profiles"
work=$(mktemp -d /tmp/sbx-it-vg.XXXXXX)
trap 'rm -rf "$work"' EXIT
ws=$work/ws
mkdir -p "$ws/src"
echo 'x' >"$ws/src/a.c"
cd "$ws"

n=0
preload=
supp=$(dirname "$0")/sbx.supp
# vg EXPECTED_STATUS CMD...: run CMD under memcheck, one log a process, and check them.
vg() {
	expect=$1
	shift
	n=$((n + 1))
	set +e
	${preload:+env LD_PRELOAD="$preload"} valgrind --vgdb=no --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
		--trace-children=no --suppressions="$supp" --log-file="$work/vg.$n.%p" "$@" \
		>"$work/out.$n" 2>"$work/err.$n"
	rc=$?
	set -e
	logs=$(ls "$work"/vg.$n.* 2>/dev/null | wc -l)
	[ "$logs" -ge 1 ] || fail "no valgrind log for: $*"
	# sbx's own log must end with a clean summary. A child's may have
	# none: sbx kills a child it no longer needs (the id-map namespace's helper, as root; the
	# sandbox's init when the launch fails) with SIGKILL, which leaves valgrind no time to
	# write one; it must report no error. sbx's log is the one whose parent is this script
	# (by pid order it need not be the first: init is pid 1 in its own pid namespace, and a
	# pid that wrapped around makes a child's lower than sbx's).
	first=$(grep -l "^==[0-9]*== Parent PID: $$\$" "$work"/vg.$n.* | head -n 1)
	[ -n "$first" ] || fail "no valgrind log of sbx itself (parent $$) for: $*"
	for log in "$work"/vg.$n.*; do
		if { [ "$log" = "$first" ] && ! grep -q 'ERROR SUMMARY: 0 errors' "$log"; } ||
			grep -Eq 'ERROR SUMMARY: [1-9]|Invalid (read|write|free)|uninitialised|(definitely|indirectly) lost: [1-9]' "$log"; then
			cat "$log" >&2
			fail "memcheck found errors in $log: $*"
		fi
	done
	if [ "$rc" != "$expect" ]; then
		cat "$work/err.$n" >&2
		fail "exit status $rc, expected $expect: $*"
	fi
	echo "ok: exit $rc, $logs process(es) clean: $*"
}

# expect_err N TEXT: the last line sbx printed on stderr for case N (notes and warnings aside)
# contains TEXT.
expect_err() {
	last=$(grep -Ev '^sbx: (note|warning):' "$work/err.$1" | tail -n 1)
	case $last in
	*"$2"*) ;;
	*) fail "case $1: expected '$2' in the error, got: $last" ;;
	esac
	[ "$(grep -Evc '^sbx: (note|warning):' "$work/err.$1")" = 1 ] ||
		fail "case $1: expected one line of error, got: $(cat "$work/err.$1")"
}

p=claude-agent
vg 0 "$sbx" check -p $p --workspace "$ws" read,write,create "$ws/src/a.c"
vg 1 "$sbx" check -p $p --workspace "$ws" write /usr/bin/x
vg 1 "$sbx" resolve -p $p --workspace "$ws" "$ws/src/a.c" /opt/not-in-the-sandbox
grep -q "$ws/src/a.c -> $ws/src/a.c" "$work/out.$n" || fail "resolve printed: $(cat "$work/out.$n")"
vg 0 "$sbx" run -p $p --workspace "$ws" --dry-run -- /bin/true
vg 0 "$sbx" run -p $p --workspace "$ws" --dry-run --json -- /bin/true
vg 0 "$sbx" run -p restricted-agent --workspace "$ws" --hide "$ws/**/*.c" --dry-run -- /bin/true
vg 0 "$sbx" profiles show $p
vg 0 "$sbx" profiles validate "$SBX_SOURCE_DIR"/profiles/*.yaml
vg 125 "$sbx" check -p "$SBX_SOURCE_DIR/tests/fixtures/profiles/bad/alias-bomb.yaml" read /

# A real launch: valgrind has no seccomp(2) and no new mount API. As root sbx refuses at its
# first open_tree, before any process exists; as a user init is cloned and sbx refuses when
# it builds the filter (after clone, while init builds the mounts), or init's first mount
# call is refused first: one line either way.
vg 125 "$sbx" run -p $p --workspace "$ws" -- /bin/true
if [ "$(id -u)" = 0 ]; then
	expect_err $n "Function not implemented"
elif grep -q seccomp "$work/err.$n"; then
	expect_err $n "seccomp"
else
	expect_err $n "Function not implemented"
fi
# The same launch with the filter installed through prctl: as far as valgrind can follow.
preload=$shim
vg 125 "$sbx" run -p $p --workspace "$ws" -- /bin/true
expect_err $n "Function not implemented"
if [ "$(id -u)" != 0 ] && [ "$logs" -lt 2 ]; then
	fail "as a user the sandbox's init should have run under memcheck too (logs: $logs)"
fi
echo "memcheck: all clean as $(id -un)"
