#!/bin/bash
# The bash completion (completions/sbx.bash), loaded as bash-completion loads it, completes
# commands, options, profile names from the search path and seccomp groups with this sbx.
# Usage: completion-bash.sh SBX SOURCE_DIR
set -u
sbx=$1
src=$2
dir=$(mktemp -d /tmp/sbx-completion.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/profiles"
ln -s "$sbx" "$dir/bin/sbx"
printf 'version: 1\nname: my-team-profile\n' >"$dir/profiles/my-team-profile.yaml"
# a shipped profile's name too (an sbx in its build tree no longer searches the source's)
cp "$src/profiles/claude-agent.yaml" "$dir/profiles/"
chmod -R go-w "$dir"
export PATH="$dir/bin:$PATH" SBX_PROFILE_PATH="$dir/profiles"
# shellcheck source=/dev/null
. "$src/completions/sbx.bash"
fail=0

# complete WORDS... : COMPREPLY for the last word
complete_words()
{
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_sbx 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}"
}

expect()
{
	local want=$1
	shift
	local got
	got=$(complete_words "$@")
	if ! grep -qx -- "$want" <<<"$got"; then
		echo "FAIL: completing '$*' did not offer '$want'; it offered: $(echo $got)"
		fail=1
	else
		echo "ok: '$*' -> $want"
	fi
}

expect_not()
{
	local unwanted=$1
	shift
	if complete_words "$@" | grep -qx -- "$unwanted"; then
		echo "FAIL: completing '$*' offered '$unwanted'"
		fail=1
	fi
}

expect my-team-profile sbx run -p my-
expect my-team-profile sbx run --profile my
expect claude-agent sbx check --profile clau
expect my-team-profile sbx profiles show my-team
expect run sbx ru
expect profiles sbx help prof
expect --workdir sbx run --work
expect --workspace sbx run --work
expect --home sbx run --ho
expect @debug sbx run --seccomp-allow @deb
expect host sbx run --net h
expect empty sbx run --home e
expect write sbx check wr
expect_not my-team-profile sbx run -- my-
exit $fail
