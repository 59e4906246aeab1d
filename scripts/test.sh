#!/bin/sh
# Run every test: unit (cmocka), the core purity check, and the integration and containment
# tests, as root and as an ordinary user (created by the tests when run as root).
# Builds first if needed. Run scripts/setup.sh once on a fresh machine.
set -eu
cd "$(dirname "$0")/.."
werror=OFF
[ "${CI:-}" = true ] && werror=ON
cmake -S . -B build -DSBX_WERROR=$werror >/dev/null
cmake --build build -j"$(nproc)"
cd build
ctest --output-on-failure --timeout 900 -j"${SBX_TEST_JOBS:-2}" "$@"
