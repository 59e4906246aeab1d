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

/*
 * What the host's write to a hidden name (host path `path`) fills, where that is not the
 * hidden file alone. 0: nothing else (no such name, a folder, a file with one link). 1: a
 * symbolic link, and out the path it leads to (which need not exist): its text joined to
 * its folder, normalised, with no symbolic link on the way (leading ".." of a relative text
 * taken from the folder, which has none). < 0: what sbx refuses to hide, *why saying it: a
 * link to a link, with a link or /proc on its way, a ".." after a name, to anything but a
 * file that may be absent; or a file with more than one hard link (its other names show what
 * is written to it).
 */
int sbx_fs_hidden_name(const char *path, char *out, size_t size, const char **why);

#endif
