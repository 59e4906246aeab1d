#!/bin/sh
# Run every test: unit (cmocka), the core purity check, lint (format, cppcheck), the fuzz
# corpora replayed, and the integration and containment tests as root and as an ordinary
# user (created by the tests when run as root); then all of it again under ASan+UBSan.
# Builds first if needed. Run scripts/setup.sh once on a fresh machine.
# SBX_TEST_QUICK=1 skips the sanitizer pass.
set -eu
cd "$(dirname "$0")/.."
werror=OFF
[ "${CI:-}" = true ] && werror=ON
jobs=${SBX_TEST_JOBS:-2}

echo "== build and test (build/)"
cmake -S . -B build -DSBX_WERROR=$werror >/dev/null
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure --timeout 900 -j"$jobs" "$@")

if [ "${SBX_TEST_QUICK:-0}" != 1 ]; then
	echo "== the same under AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/)"
	cmake -S . -B build-asan -DSBX_SANITIZE=ON -DSBX_WERROR=$werror >/dev/null
	cmake --build build-asan -j"$(nproc)"
	# Every launch costs several times more under ASan: one round of the 200-at-once load
	# test here; the plain pass above ran all ten.
	(cd build-asan && SBX_IT_LOAD_ROUNDS=1 ctest --output-on-failure --timeout 900 -j"$jobs" \
		-E '^lint\.' "$@")
fi
