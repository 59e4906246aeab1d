#!/bin/sh
# The Debian package (issue 17): build it from this source tree with dpkg-buildpackage, check
# it with lintian (no error or warning), install it on this machine, use the installed sbx
# (doctor, a sandbox with a profile found in /usr/share/sbx/profiles, the man page), remove
# it, and check that nothing of it is left. Run as root (CI); skipped (77) as a user, or where
# a package named sbx is already installed (this test would replace someone's install).
# Usage: deb.sh SOURCE_DIR
set -eu
src=${1:?usage: deb.sh SOURCE_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || { echo "SKIP: installing a package needs root"; exit 77; }
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null 2>&1 ||
		fail "$tool is missing: scripts/setup.sh installs debhelper, dpkg-dev, lintian"
done
if dpkg-query -W -f='${Status}' sbx 2>/dev/null | grep -q "install ok installed"; then
	echo "SKIP: a package named sbx is already installed here; not replacing it"
	exit 77
fi
[ ! -e /usr/bin/sbx ] || fail "/usr/bin/sbx exists but no package owns it: not overwriting it"

work=$(mktemp -d /tmp/sbx-deb.XXXXXX)
trap 'dpkg -r sbx >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# The tree as it is (tracked and untracked files, edits included), without what git ignores
# (the build directories).
mkdir "$work/sbx"
(cd "$src" && git ls-files -z -c -o --exclude-standard | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$work/sbx"
[ -f "$work/sbx/debian/control" ] || fail "no debian/control in the copied tree"

(cd "$work/sbx" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) || {
	tail -40 "$work/build.log" >&2
	fail "dpkg-buildpackage failed"
}
deb=$(ls "$work"/sbx_*_*.deb 2>/dev/null | grep -v dbgsym | head -1)
[ -n "$deb" ] || fail "no sbx_*.deb was built"
echo "built $(basename "$deb")"

# lintian: no error, no warning (an override, if ever needed, lives in debian/ with its reason)
lintian --no-tag-display-limit "$deb" >"$work/lintian.log" 2>&1 || true
if grep -E '^(E|W):' "$work/lintian.log"; then
	fail "lintian reported the tags above"
fi

# What the package holds
dpkg -c "$deb" >"$work/contents"
for f in ./usr/bin/sbx ./usr/share/man/man1/sbx.1.gz ./usr/share/man/man5/sbx-profile.5.gz \
	./usr/share/sbx/profiles/claude-agent.yaml ./usr/share/sbx/profiles/ci-job.yaml \
	./usr/share/doc/sbx/copyright; do
	grep -q " $f\$" "$work/contents" || fail "the package lacks $f"
done

dpkg -i "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "dpkg -i failed"; }
[ -x /usr/bin/sbx ] || fail "/usr/bin/sbx not installed"
/usr/bin/sbx --version >/dev/null || fail "sbx --version failed"
/usr/bin/sbx doctor >"$work/doctor" 2>&1 || { cat "$work/doctor" >&2; fail "sbx doctor failed"; }

# A sandbox with a shipped profile, found where the package put it, from a project directory.
mkdir "$work/proj"
echo hello >"$work/proj/file"
out=$(cd "$work/proj" && env -u SBX_PROFILE_PATH HOME="$work" \
	/usr/bin/sbx run --profile ci-job -- /bin/sh -c 'cat file; echo x >new && echo wrote')
[ "$out" = "hello
wrote" ] || fail "sandbox under ci-job printed: $out"
[ -f "$work/proj/new" ] || fail "the workspace write did not reach the project"
if (cd "$work/proj" && /usr/bin/sbx run --profile ci-job -- /bin/sh -c "cat $work/doctor" \
	>/dev/null 2>&1); then
	fail "ci-job read a host file outside its workspace"
fi
/usr/bin/sbx profiles 2>&1 | grep -q "/usr/share/sbx/profiles" ||
	fail "sbx profiles does not list /usr/share/sbx/profiles"
if command -v man >/dev/null 2>&1; then
	man -w sbx 2>/dev/null | grep -q /usr/share/man/man1/sbx.1 || fail "man sbx is not found"
fi

dpkg -r sbx >/dev/null 2>&1 || fail "dpkg -r sbx failed"
[ ! -e /usr/bin/sbx ] || fail "/usr/bin/sbx is left after dpkg -r"
[ ! -e /usr/share/sbx/profiles/claude-agent.yaml ] || fail "profiles left after dpkg -r"
echo "ok: built, lintian clean, installed, ran doctor and a ci-job sandbox, removed"
