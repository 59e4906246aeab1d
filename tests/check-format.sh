#!/bin/sh
# Every C file git tracks is formatted as .clang-format says.
set -eu
clang_format=${1:-clang-format}
bad=""
for f in $(git ls-files '*.c' '*.h' 2>/dev/null || find src cmd include tests -name '*.[ch]'); do
	"$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
	echo "not formatted per .clang-format:$bad" >&2
	echo "fix with: clang-format -i$bad" >&2
	exit 1
fi
echo "all files formatted"
