#!/bin/sh
# Benchmark of the walk for hide globs (issue 4): a generated tree of 100 000 files in
# 10 000 directories (100 x 100 directories, 10 files each; a few secrets among them),
# hidden by 10 glob rules, then by 1 rule. Prints the walk's own time as `sbx run --dry-run`
# reports it: the first launch (no cache: a walk) and later launches (the cache revalidated
# by each directory's change time).
#
#   bench/globwalk.sh [SBX] [DIR]        (defaults: build/sbx, a fresh directory in /var/tmp)
#
# Targets: first launch <= 250 ms of walking, later <= 25 ms, nearly independent of the
# number of rules. The kernel's dentry cache is warm (the tree was just made); say so when
# quoting the figures.
set -eu
SBX=$(realpath "${1:-$(dirname "$0")/../build/sbx}")
TREE=${2:-$(mktemp -d /var/tmp/sbx-globbench.XXXXXX)}
CACHE=$(mktemp -d /var/tmp/sbx-globcache.XXXXXX)
trap 'rm -rf "$CACHE"; [ -n "${2:-}" ] || rm -rf "$TREE"' EXIT

if [ ! -e "$TREE/.made" ]; then
	i=0
	while [ $i -lt 100 ]; do
		j=0
		while [ $j -lt 100 ]; do
			d="$TREE/d$i/e$j"
			mkdir -p "$d"
			(cd "$d" && touch f0.c f1.c f2.py f3.md f4.txt f5.js f6.ts f7.json f8.h f9.o)
			j=$((j + 1))
		done
		i=$((i + 1))
	done
	# a few secrets, replacing ordinary files so that the count stays 100 000
	for k in 0 7 42 99; do
		mv "$TREE/d$k/e$k/f9.o" "$TREE/d$k/e$k/.env"
		mv "$TREE/d$k/e1/f8.h" "$TREE/d$k/e1/id_rsa"
	done
	touch "$TREE/.made"
fi
echo "tree: $(find "$TREE" -type f ! -name .made | wc -l) files in $(find "$TREE" -mindepth 1 -type d | wc -l) directories under $TREE"

RULES10="**/.env **/.env.local **/*.pem **/id_rsa **/.npmrc **/.pypirc **/.netrc **/secrets.yaml **/*.key **/credentials.json"
run() { # run NAME RULES...
	name=$1
	shift
	args=""
	for r in "$@"; do args="$args --hide $TREE/$r"; done
	rm -rf "$CACHE"/*
	for n in first later later later; do
		# shellcheck disable=SC2086
		line=$(cd "$TREE" && XDG_CACHE_HOME=$CACHE "$SBX" run --net host $args --dry-run -- /bin/true |
			grep '^glob walk:')
		echo "$name $n: ${line#glob walk:  }"
	done
}
# shellcheck disable=SC2086
run "10 rules" $RULES10
run " 1 rule " "**/.env"
