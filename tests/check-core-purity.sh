#!/bin/sh
# The core library must stay pure (STYLE.md, docs/design.md): no kernel-facing call (mounts,
# namespaces, prctl, Landlock, seccomp, capabilities, ids, sockets, ioctls, processes,
# signals), no writing to files, no printing, no exit. This lists what its objects reference
# from outside and fails on any forbidden symbol. The build runs it after every link of
# sbx_core, so a kernel call in core is a build error; CTest runs it too.
# Core reads no file either: the profile loader gets its bytes and existence checks through
# the caller's hooks (struct sbx_profile_opts: read, is_file, resolve, exists). Nor does it ask
# the host what it could be given as a fact: ids, the environment, descriptors, extended
# attributes, keys.
#
# _FORTIFY_SOURCE renames calls (printf -> __printf_chk, open -> __open_2, read ->
# __read_chk): a symbol is tested as itself and with the fortify wrapping taken off.
set -euf # -f: the patterns below are regular expressions, never file globs
lib=$1
# Extended regular expressions, each matched against a whole symbol name.
forbidden='
mount|umount2?|open_tree|move_mount|fsopen|fsmount|fsconfig|fspick|mount_setattr|pivot_root|chroot
unshare|setns|clone3?|fork|vfork|exec[lv]p?e?|fexecve|posix_spawnp?|system|popen
prctl|syscall|ioctl|ptrace|personality
landlock_.*|seccomp|seccomp_.*|cap_.*|capset|capget
set(res|re|fs)?[ug]id|setgroups|initgroups|setsid|setpgid|setrlimit|prlimit|prlimit64
socket|socketpair|connect|bind|listen|accept4?|send|sendto|sendmsg|recv|recvfrom|recvmsg
kill|tgkill|raise|signal|sigaction|sigprocmask|pthread_sigmask|wait|waitpid|waitid|pidfd_.*
write|pwrite|writev|unlink|unlinkat|rename|renameat2?|mkdir|mkdirat|rmdir|chmod|fchmod|chown|fchown|truncate|ftruncate|symlink|link|linkat|memfd_create|mmap|mprotect
printf|fprintf|vprintf|vfprintf|dprintf|vdprintf|puts|fputs|fputc|putc|putchar|perror|fwrite|fopen|fdopen|err|errx|warn|warnx|stdin|stdout|stderr
exit|_exit|_Exit|abort|quick_exit
open|open64|openat|openat64|openat2|creat|read|pread|pread64|readv|close|fstat|fstat64|stat|stat64|lstat|lstat64|fstatat|fstatat64|newfstatat|statx|realpath|readlink|readlinkat|access|faccessat|opendir|fdopendir|readdir|readdir64|scandir|getdents64|fopen64|fread|fgets|getline|getcwd|chdir|fchdir
__f?x?stat(at)?(64)?|__l?xstat(64)?
dup[23]?|fcntl(64)?|pipe2?|poll|ppoll|select|pselect|epoll_.*|eventfd|signalfd|timerfd_.*|inotify_.*|fanotify_.*
get(e|res)?[ug]id|getgroups|getpid|getppid|gettid|uname|sysinfo
l?f?(set|get|list|remove)xattr|keyctl|add_key|request_key
getenv|secure_getenv|setenv|unsetenv|putenv|clearenv
'
undefined=$(nm -u "$lib" | awk '{print $2}' | sed 's/@.*//' | sort -u)
patterns=$(printf '%s\n' $forbidden | sed 's/.*/^(&)$/')
bad=""
for sym in $undefined; do
	bare=$(printf '%s\n' "$sym" | sed -E 's/^__(.+)_(chk|2)$/\1/')
	if printf '%s\n%s\n' "$sym" "$bare" | grep -Eq "$patterns"; then
		bad="$bad $sym"
	fi
done
if [ -n "$bad" ]; then
	echo "core references forbidden symbols:$bad" >&2
	echo "move that code to src/os/ or cmd/ (STYLE.md: core is pure)" >&2
	exit 1
fi
echo "core is pure: $(printf '%s\n' "$undefined" | wc -l) external symbols, none forbidden"
