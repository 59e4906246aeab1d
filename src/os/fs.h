/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_FS_H
#define SBX_OS_FS_H

/* Host paths (src/os/fs.c): opened without following what a worker could have planted, and
 * the profile loader's file hooks (struct sbx_profile_opts: is_file, resolve). */

#include <stdbool.h>
#include <sys/types.h>

/* openat2(2) (glibc 2.36 does not wrap it), or, where it answers ENOSYS (inside a parent
 * sandbox), a walk one component at a time that refuses what the flags refuse: -errno on
 * failure. Only RESOLVE_NO_SYMLINKS with RESOLVE_NO_MAGICLINKS and RESOLVE_BENEATH. */
int sbx_openat2(int dirfd, const char *path, int flags, unsigned long long resolve);

/* A file sbx writes on the host (an audit log, --net-learn-out): opened with flags (O_CREAT
 * with mode allowed) and O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, its directory reached without
 * following any symbolic link, so that one a sandbox left on the path for a later run
 * redirects nothing. -ELOOP for a symbolic link anywhere on the path, else -errno. */
int sbx_fs_open_output(const char *path, int flags, mode_t mode);

/* Is path a regular file, symlinks followed? (stat(2)) */
bool sbx_fs_is_file(const char *path);

/* realpath(3): the canonical path, allocated, or NULL with errno. */
char *sbx_fs_realpath(const char *path);

/* Remove the directory tree at path (a landlock sub-worker's temporary directory, made by sbx
 * inside a sandbox's own /tmp), depth first, never following a symlink or leaving the tree
 * through a name swapped meanwhile; what cannot be removed stays. 0 or -errno (rmdir's). */
int sbx_fs_remove_tree(const char *path);

/* If path is a symbolic link, what the host's kernel would reach through it: the link's
 * text joined to its folder, the folder above the last name resolved (realpath, every link
 * followed, as a write through it would), up to 8 links in a row. 1 and the target in out
 * (which need not exist); 0 for anything but a link; -errno where nothing could be there
 * (its folder missing, a loop). */
int sbx_fs_link_target(const char *path, char *out, size_t size);

#endif
