/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_FS_H
#define SBX_OS_FS_H

/* Host paths opened without following what a worker could have planted (src/os/fs.c). */

/* openat2(2) (glibc 2.36 does not wrap it), or, where it answers ENOSYS (inside a parent
 * sandbox), a walk one component at a time that refuses what the flags refuse: -errno on
 * failure. Only RESOLVE_NO_SYMLINKS with RESOLVE_NO_MAGICLINKS and RESOLVE_BENEATH. */
int sbx_openat2(int dirfd, const char *path, int flags, unsigned long long resolve);

#endif
