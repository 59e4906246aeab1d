/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_SHARESLOT_H
#define SBX_OS_SHARESLOT_H

/*
 * The rank of a sandbox among the caller's sandboxes running at once, for its share of the
 * caller's inotify and fanotify counts (include/sbx/limits.h, sbx_ucount_share_at): each gets
 * a share of what those of lower rank left, so that a few of them never take all of the
 * caller's inotify instances (four quarters did). A rank is held by an exclusive flock(2) on
 * RUNTIME/.share-K, the lowest K free: the kernel releases it when sbx is gone, killed or
 * not, and the next sandbox takes the lowest free rank again. RUNTIME is the caller's runtime
 * directory (os/registry.h: owned by the caller, 0700, hidden from every sandbox), so that no
 * other user and no worker can hold a rank; the name begins with a dot, which `sbx ps` skips.
 *
 * What it cannot see: the caller's own use of the counts outside sbx (an editor's inotify
 * instances: the kernel shows no per-user count), and sandboxes of another runtime directory
 * (another XDG_RUNTIME_DIR of the same uid). It costs two system calls a launch (open, flock)
 * where rank 0 is free, and three more (open, flock, close) for each rank held.
 */

#define SBX_SHARE_SLOTS 32u /* ranks tried; beyond, the last rank (the floor's share) */

/* Take the lowest free rank beneath the runtime directory dirfd: returns it with *fd the file
 * whose lock holds it (the caller keeps it open while the sandbox runs; close-on-exec), or
 * SBX_SHARE_SLOTS - 1 with *fd -1 when none can be taken (all held, or a file cannot be made:
 * the smallest share, never a larger one). */
unsigned sbx_shareslot_take(int dirfd, int *fd);

#endif
