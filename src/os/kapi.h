/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_KAPI_H
#define SBX_OS_KAPI_H

/*
 * The kernel's newer calls where the C library has no wrapper for them: the mount API
 * (fsopen, fsconfig, fsmount, move_mount, open_tree: Linux 5.2; mount_setattr: 5.12) and
 * statx (4.11). glibc 2.36 declares them all in <sys/mount.h> and <sys/stat.h>; musl
 * 1.2.3 declares none (sbx linked with musl is measured in bench/README.md, section 1b). The
 * constants and structures then come from the kernel's own headers, which are its ABI, and each
 * call is the bare system call. And W_EXITCODE, a wait status made from an exit code and a signal,
 * which musl does not define.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef FSOPEN_CLOEXEC
#include <linux/mount.h>

static inline int fsopen(const char *fs_name, unsigned int flags)
{
	return (int)syscall(SYS_fsopen, fs_name, flags);
}

static inline int fsconfig(int fd, unsigned int cmd, const char *key, const void *value, int aux)
{
	return (int)syscall(SYS_fsconfig, fd, cmd, key, value, aux);
}

static inline int fsmount(int fd, unsigned int flags, unsigned int attr_flags)
{
	return (int)syscall(SYS_fsmount, fd, flags, attr_flags);
}

static inline int move_mount(int from_dfd, const char *from_path, int to_dfd, const char *to_path,
                             unsigned int flags)
{
	return (int)syscall(SYS_move_mount, from_dfd, from_path, to_dfd, to_path, flags);
}

static inline int open_tree(int dfd, const char *path, unsigned int flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static inline int mount_setattr(int dfd, const char *path, unsigned int flags,
                                struct mount_attr *attr, size_t size)
{
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, attr, size);
}
#endif

/* A wait status from an exit code and a signal, as the kernel encodes it (glibc's macro) */
#ifndef W_EXITCODE
#define W_EXITCODE(ret, sig) ((ret) << 8 | (sig))
#endif

#ifndef STATX_TYPE
#include <linux/stat.h>

static inline int statx(int dfd, const char *path, int flags, unsigned int mask, struct statx *buf)
{
	return (int)syscall(SYS_statx, dfd, path, flags, mask, buf);
}
#endif

#endif
