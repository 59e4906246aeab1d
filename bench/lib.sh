# SPDX-License-Identifier: MIT
# Shared by the bench/ scripts (bash). Sourced, not run.

# bench_system_args SBX PROJECT PLAN_FILE ARRAY: fill the array named ARRAY with bubblewrap
# arguments for the system mounts that sbx itself would make for an agent-like sandbox of
# PROJECT (from 'sbx run --dry-run --json'): every system bind as --ro-bind SRC DST, every
# merged-/usr link as --symlink LINK DST. So both launchers build the same tree, whatever the
# host has. Needs jq or python3.
bench_system_args() {
	local sbx=$1 proj=$2 plan=$3 a
	local -n out=$4
	"$sbx" run --dry-run --json -v "$proj" -v "$proj/.git:ro" --chdir "$proj" -- /bin/true >"$plan" ||
		{ echo "sbx run --dry-run --json failed" >&2; return 1; }
	if command -v jq >/dev/null; then
		mapfile -t out < <(jq -r '.operations[] | select(.why | startswith("system")) |
			if .op == "bind" then "--ro-bind", .source, .target
			elif .op == "symlink" then "--symlink", .link, .target
			else empty end' "$plan")
	else
		mapfile -t out < <(python3 -c 'import json,sys
for o in json.load(open(sys.argv[1]))["operations"]:
    if not o["why"].startswith("system"):
        continue
    if o["op"] == "bind":
        print("--ro-bind"); print(o["source"]); print(o["target"])
    elif o["op"] == "symlink":
        print("--symlink"); print(o["link"]); print(o["target"])' "$plan")
	fi
	[ "${#out[@]}" -gt 0 ] || { echo "sbx's plan lists no system mounts" >&2; return 1; }
	for a in "${out[@]}"; do
		case $a in *[[:space:]]*)
			echo "system path '$a' has whitespace; hyperfine -N cannot pass it" >&2
			return 1 ;;
		esac
	done
}
