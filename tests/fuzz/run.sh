#!/bin/sh
# Build the libFuzzer targets with clang and run each for SECONDS (default 60), one after
# the other, growing the corpora in tests/fuzz/corpus/. A crash stops the run and leaves
# its input as crash-* in the current directory: keep it in the corpus as a regression case
# once fixed.   Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]   (TARGET: glob or fuzz_glob)
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
[ $# -gt 0 ] && shift
CC=clang cmake -S . -B build-fuzz -DSBX_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null
targets=${*:-$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')}
for t in $targets; do
	t=fuzz_${t#fuzz_} # "glob" or "fuzz_glob"
	corpus=tests/fuzz/corpus/${t#fuzz_}
	scratch=$(mktemp -d)
	echo "== $t for ${secs}s"
	build-fuzz/tests/fuzz/"$t" -max_total_time="$secs" -print_final_stats=1 \
		-max_len=4096 "$scratch" "$corpus" 2>&1 | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#.*DONE)|ERROR|SUMMARY' || true
	# keep a minimised corpus
	build-fuzz/tests/fuzz/"$t" -merge=1 "$corpus" "$scratch" >/dev/null 2>&1 || true
	rm -rf "$scratch"
done
