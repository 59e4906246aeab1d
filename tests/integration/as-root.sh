#!/bin/sh
# Run an integration test binary as root; skip (77) when the caller is not root.
set -eu
if [ "$(id -u)" != 0 ]; then
	echo "skipped: the root variant needs root (run the suite with sudo, as CI does)"
	exit 77
fi
stage=$(mktemp -d /tmp/sbx-it-root.XXXXXX)
trap 'rm -rf "$stage"' EXIT
# the shipped profiles and fixtures from a root-owned copy (stage-profiles.sh says why)
. "$(dirname "$0")/stage-profiles.sh"
set +e
"$@"
exit $?
