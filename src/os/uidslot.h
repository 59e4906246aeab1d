/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_UIDSLOT_H
#define SBX_OS_UIDSLOT_H

/*
 * As root, each sandbox's worker runs as a host id range of its own (include/sbx/plan.h,
 * SBX_ROOT_MAP_BASE), so that root-started sandboxes do not share one per-user pool (pipe
 * buffer pages, epoll watches, processes, message queue bytes). A range is taken by binding an
 * abstract unix socket named after it in sbx's network namespace: nothing is written to the
 * host, two live sbx can never hold one name, and the kernel releases it when sbx and its
 * sandbox (which inherits the socket) are gone, killed or not.
 */

#define SBX_ROOT_SLOTS 1024u /* ranges below SBX_ROOT_MAP_BASE, 65536 ids each */

/* Take a free range: returns its first host id with *fd the socket that holds it (the
 * caller keeps it open while the sandbox runs), or 0 with *fd -1 when none is free (every
 * name bound: the shared default range is used). */
unsigned sbx_uidslot_take(int *fd);

#endif
