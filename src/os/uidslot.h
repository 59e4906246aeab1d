/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_UIDSLOT_H
#define SBX_OS_UIDSLOT_H

/*
 * As root, each sandbox's worker runs as a host id range of its own (include/sbx/plan.h,
 * SBX_ROOT_MAP_BASE), so that root-started sandboxes do not share one per-user pool (pipe
 * buffer pages, epoll watches, processes, message queue bytes). A range is taken by an
 * exclusive flock(2) on /run/sbx/root-ids/K, in a directory only root can write (sbx's own
 * runtime state, as the records of `sbx ps`): no other user can hold a slot (an abstract unix
 * socket name, the first way, could be bound by anyone and made every sandbox share the
 * default range), and the kernel releases the lock when sbx is gone, killed or not.
 */

#define SBX_ROOT_SLOTS 1024u /* ranges below SBX_ROOT_MAP_BASE, 65536 ids each */

/* Take a free range: returns its first host id with *fd the file whose lock holds it (the
 * caller keeps it open while the sandbox runs), or 0 with *fd -1 when none can be taken (all
 * held, or /run/sbx not root's: the caller says so and uses the shared default range). */
unsigned sbx_uidslot_take(int *fd);

#endif
