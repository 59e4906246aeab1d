#!/bin/sh
# Run an integration test binary as root; skip (77) when the caller is not root.
if [ "$(id -u)" != 0 ]; then
	echo "skipped: the root variant needs root (run the suite with sudo, as CI does)"
	exit 77
fi
exec "$@"
