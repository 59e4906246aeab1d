/* SPDX-License-Identifier: MIT */
#ifndef SBX_NETPIPE_H
#define SBX_NETPIPE_H

/*
 * How big the pipes of sbx's network proxy are (src/os/netproxy.c; sbx(1), NETWORK). Each
 * tunnel splices through two pipes, and pipe pages are a per-user pool the kernel counts
 * against fs.pipe-user-pages-soft: past it, every new pipe of that user (the caller's shell
 * pipelines as well as the sandbox's) holds two pages. So the proxy keeps its pipes under a
 * budget, a share of that pool: full-size pipes while two more fit, then smaller ones, down
 * to one page a pipe. Pure arithmetic, no kernel call.
 */

#include <stddef.h>

#define SBX_NETPIPE_MAX    (256u * 1024u)        /* a tunnel's pipe, each way, at most */
#define SBX_NETPIPE_BUDGET (16u * 1024u * 1024u) /* the proxy's pipes together, at most */
#define SBX_NETPIPE_SHARE  4u /* ... and at most 1/SHARE of fs.pipe-user-pages-soft */

/*
 * The proxy's budget: SBX_NETPIPE_BUDGET, or 1/SBX_NETPIPE_SHARE of soft_pages pages of page
 * bytes if that is less; soft_pages 0 (no soft limit) leaves SBX_NETPIPE_BUDGET.
 */
size_t sbx_netpipe_budget(unsigned long soft_pages, size_t page);

/*
 * The size to ask for each of a new tunnel's two pipes, when the proxy's pipes hold used
 * bytes of budget: SBX_NETPIPE_MAX while two of them fit, else the largest power-of-two
 * fraction of it for which two fit, else one page. So the pipes together never pass
 * budget + 2 * page * (tunnels past it).
 */
size_t sbx_netpipe_size(size_t used, size_t budget, size_t page);

#endif
