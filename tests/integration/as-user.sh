#!/bin/sh
# Run an integration test binary as an ordinary user. As root, create the user
# sbx-test (if missing) and drop to it; as a user already, just run it.
set -eu
if [ "$(id -u)" != 0 ]; then
	exec "$@"
fi
user=sbx-test
if ! id -u "$user" >/dev/null 2>&1; then
	useradd --create-home --shell /bin/sh "$user"
fi
# The build tree may sit where the user cannot reach (/root/...): copy what runs into a
# directory the user can read, and remove it afterwards.
stage=$(mktemp -d /tmp/sbx-it-bin.XXXXXX)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"
cp "$1" "$stage/test"
cp "$SBX" "$stage/sbx"
chmod 755 "$stage/test" "$stage/sbx"
shift
export SBX="$stage/sbx"
# sbx refuses a profile or policy that someone other than the caller or root could have
# written (a folder on the way included): the shipped profiles and the fixtures are read from
# a root-owned copy, whoever owns the checkout and whatever its umask.
. "$(dirname "$0")/stage-profiles.sh"
# A profile owned by someone else, which the user must refuse (it_trust): a user cannot give
# a file away, so it is made here.
mkdir "$stage/foreign"
printf 'version: 1\nname: foreign\n' >"$stage/foreign/foreign.yaml"
chown 65534:65534 "$stage/foreign/foreign.yaml"
chmod 644 "$stage/foreign/foreign.yaml"
set +e
setpriv --reuid="$user" --regid="$user" --init-groups --reset-env \
	env SBX="$SBX" SBX_SOURCE_DIR="${SBX_SOURCE_DIR:-}" SBX_IT_LOAD_ROUNDS="${SBX_IT_LOAD_ROUNDS:-}" \
	SBX_IT_FOREIGN="$stage/foreign/foreign.yaml" \
	PATH=/usr/local/bin:/usr/bin:/bin \
	HOME="$(getent passwd "$user" | cut -d: -f6)" TMPDIR=/tmp "$stage/test" "$@"
rc=$?
exit $rc
