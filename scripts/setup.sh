#!/bin/sh
# Install what sbx needs to build and test (Debian 12 / Ubuntu), build it, and run it once on
# a real example: a shell that sees the project but not your home directory.
set -eu
cd "$(dirname "$0")/.."

packages="build-essential cmake pkg-config libseccomp-dev libcap-dev libyaml-dev libcmocka-dev
util-linux procps bubblewrap hyperfine python3 git clang clang-format cppcheck curl nodejs
valgrind"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "installing:$missing"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

werror=OFF
[ "${CI:-}" = true ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSBX_WERROR=$werror
cmake --build build -j"$(nproc)"

echo
echo "== sbx run -- sh -c 'ls the project, then try \$HOME' =="
./build/sbx run -- /bin/sh -c '
	echo "inside: $(pwd)"; ls | head -5
	if ls "$HOME" >/dev/null 2>&1 && [ "$HOME" != "$(pwd)" ]; then
		echo "HOME $HOME is visible"
	else
		echo "HOME $HOME is not visible: good"
	fi'
