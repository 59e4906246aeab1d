#!/bin/sh
# The core library must stay pure (STYLE.md): no mount, namespace, prctl, Landlock or
# seccomp call, no process control, no printing, no exit. This lists what its objects
# reference from outside and fails on any forbidden symbol.
set -eu
lib=$1
forbidden='mount umount umount2 unshare setns clone clone3 fork vfork execve execv execvp execvpe
prctl syscall pivot_root chroot capset cap_set_proc seccomp_init seccomp_load seccomp_rule_add
printf fprintf vprintf vfprintf puts fputs fputc putchar perror exit _exit abort kill
open_tree move_mount fsopen fsmount mount_setattr landlock_create_ruleset'
undefined=$(nm -u "$lib" | awk '{print $2}' | sed 's/@.*//' | sort -u)
bad=""
for sym in $forbidden; do
	if printf '%s\n' "$undefined" | grep -qx "$sym"; then
		bad="$bad $sym"
	fi
done
if [ -n "$bad" ]; then
	echo "core references forbidden symbols:$bad" >&2
	echo "move that code to src/os/ or cmd/ (see STYLE.md: core is pure)" >&2
	exit 1
fi
echo "core is pure: $(printf '%s\n' "$undefined" | wc -l) external symbols, none forbidden"
