#!/bin/sh
# Install what sbx needs to build and test (Debian 12 / Ubuntu), build it, and run it once on
# a real example: a shell that sees the project but not your home directory.
set -eu
cd "$(dirname "$0")/.."

packages="build-essential cmake pkg-config libseccomp-dev libcap-dev libyaml-dev libcmocka-dev
util-linux procps bubblewrap hyperfine python3 git clang clang-format cppcheck curl nodejs
valgrind golang-go debhelper dpkg-dev fakeroot lintian zsh fish iproute2 openssh-client
python3-yaml lld"
# zsh and fish: the test suite checks that their completions (completions/) parse.
# iproute2: it_net's stand-in internet (a veth pair); openssh-client: git over ssh through
# sbx's proxy (it_net); python3-yaml: it_examples parses the CI examples (git and python3
# do not pull either in with --no-install-recommends); lld: links sbx with its launch path's
# functions together (CMakeLists.txt, SBX_LINK_ORDER; ld's link, unordered, without it).
# Debian's nodejs comes without npm (images with NodeSource's nodejs bring their own).
command -v npm >/dev/null 2>&1 || packages="$packages npm"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
if [ -n "$missing" ]; then
	echo "installing:$missing"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

# The real agent, for the claude-agent profile's end-to-end test (it_profiles), from the npm
# registry and pinned so that every machine tests the same one.
claude_version=2.1.197
if ! command -v claude >/dev/null 2>&1; then
	echo "installing Claude Code $claude_version (npm)"
	$sudo npm install -g --no-audit --no-fund --loglevel=error \
		"@anthropic-ai/claude-code@$claude_version"
fi

werror=OFF
[ "${CI:-}" = true ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSBX_WERROR=$werror
cmake --build build -j"$(nproc)"

echo
echo "== sbx run -- sh -c 'ls the project, then try \$HOME' =="
./build/sbx run -- /bin/sh -c '
	echo "inside: $(pwd)"; ls | head -5
	mine=$(ls -A "$HOME" 2>/dev/null | grep -vx ".gitconfig" | wc -l)
	if [ "$HOME" = "$(pwd)" ]; then
		echo "HOME $HOME is the project itself"
	elif [ "$mine" -gt 0 ]; then
		echo "HOME $HOME shows $mine entries"
	else
		echo "HOME $HOME is a private, empty home (your ~/.gitconfig at most): good"
	fi'
